// PosLab: a lab for transformer positional encodings and attention.
#include "cli/cli.hpp"
#include "gui/gui.hpp"

int main(int argc, char** argv) { return poslab::run_command_line(argc, argv, poslab::run_gui); }

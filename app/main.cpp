// PosLab: a lab for transformer positional encodings and attention.
#include "ui/cli.hpp"

int main(int argc, char** argv) { return poslab::run_command_line(argc, argv); }

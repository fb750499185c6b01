#pragma once
// The command line: the GUI by default, `poslab export VIEW …` headless.
#include "figures/launch.hpp"

namespace poslab {

// `run_gui` starts the window when the arguments ask for no command.
int run_command_line(int argc, char** argv, const GuiLauncher& run_gui);

}  // namespace poslab

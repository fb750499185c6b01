#pragma once
// The desktop window: GLFW + Dear ImGui, the controls and the views.
#include <string>

#include "figures/launch.hpp"

namespace poslab {


// Where the GUI keeps the last session: config_dir(), i.e. $XDG_CONFIG_HOME/poslab or
// ~/.config/poslab.
std::string last_session_path();

// Runs the GUI until the window closes; returns the process exit code.
int run_gui(const GuiOptions& options);

}  // namespace poslab

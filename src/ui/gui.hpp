#pragma once
// The desktop window: GLFW + Dear ImGui, the controls and the views.
#include <string>

#include "core/state.hpp"
#include "ui/export.hpp"

namespace poslab {

struct GuiOptions {
  State state;
  std::string screenshot;  // when set: save the window `frames` frames after any `load` and quit
  int frames = 5;
  int width = 0;                  // window size in pixels; 0: 1440 × 900 points at the monitor's scale, within
  int height = 0;                 // the monitor's work area
  bool remember_session = false;  // start from the last session and save it on exit
  ExportView initial_view = ExportView::Attention;  // the tab shown first
  std::string load;       // a file to load on the loader thread once the window is up (as Load does)
  double load_rate = 0.0;  // MB/s the loader may parse (0: no limit), to play a slow drive
  std::string frame_log;  // when set: write each frame's time, load state and table size here
  float ui_scale = 0.0f;  // > 0: pixels per point (--ui-scale), over the setting and the monitor
};

// Where the GUI keeps the last session: config_dir(), i.e. $XDG_CONFIG_HOME/poslab or
// ~/.config/poslab.
std::string last_session_path();

// Runs the GUI until the window closes; returns the process exit code.
int run_gui(const GuiOptions& options);

}  // namespace poslab

#pragma once
// How the desktop window starts: what the command line hands the GUI. The command line parses
// these (cli/) and the app passes them to the GUI (gui/), so that neither depends on the other.
#include <functional>
#include <string>

#include "core/state.hpp"
#include "core/tour/tour_text.hpp"
#include "figures/export.hpp"

namespace poslab {

inline constexpr float kMinUiScale = 0.5f, kMaxUiScale = 4.0f;  // pixels per point

struct GuiOptions {
  State state;
  std::string screenshot;  // when set: save the window `frames` frames after any `load` and quit
  int frames = 5;
  int width = 0;                  // window size in pixels; 0: 1440 × 900 points at the monitor's scale, within
  int height = 0;                 // the monitor's work area
  bool remember_session = false;  // start from the last session and save it on exit
  ViewId initial_view = ViewId::Attention;  // the tab shown first
  std::string load;       // a file to load on the loader thread once the window is up (as Load does)
  double load_rate = 0.0;  // MB/s the loader may parse (0: no limit), to play a slow drive
  std::string frame_log;  // when set: write each frame's time, load state and table size here
  float ui_scale = 0.0f;  // > 0: pixels per point (--ui-scale), over the setting and the monitor
  int tour_step = 0;                    // --step N: the tour opens at step N (0-based here)
  Language tour_language = Language::En;  // --lang en|ja
  std::string probe;      // when set: where the window's controls are and what it shows, for tests (gui/probe.hpp)
};

// Runs the window until it closes; returns the process's exit code.
using GuiLauncher = std::function<int(const GuiOptions&)>;

}  // namespace poslab

#pragma once
// The left-hand panel: every choice of the State, edited in place.
#include <string>
#include <system_error>

#include "core/state.hpp"
#include "core/async_load.hpp"
#include "core/workspace.hpp"
#include "figures/views.hpp"
#include "gui/recent_files.hpp"

namespace poslab {

struct ControlsActions {
  bool load_embeddings = false;  // the user asked to load `embeddings_input`
  bool cancel_load = false;      // … and to stop a load that is running
  int export_png_scale = 0;  // 1, 2 or 4: write the open view's PNG at that scale
  bool export_csv = false;
  bool export_svg = false;
  bool export_html = false;  // the attention view or the Model tab's heads as a page that answers the pointer
  bool export_all = false;  // every view into `export_folder`
  bool save_session = false;  // write `session_path`
  bool open_session = false;  // read `session_path`
};

// A Hugging Face config.json to read RoPE settings from, and what the last read said.
struct ConfigField {
  std::string path = "config.json";
  std::string message;
};

// RoPE's context scaling (its type, factor, original length and the type's own numbers), edited
// in place: the explorer's in the panel, a model's in the Model tab.
void draw_context_scaling(RopeScaling& scaling);

class ControlsPanel {
 public:
  // Edits `state`; returns what the user asked for besides that. `shown`: the tab beside the
  // panel (the Model and Train tabs leave out the explorer's settings, which do not apply there);
  // `model_layer`: the Attention tab shows a model's layer, whose positions, heads and weights
  // are the model's (its encoding, bias and attention settings are shown but cannot be changed).
  ControlsActions draw(State& state, const Workspace& workspace, ViewId shown, bool model_layer = false);
  std::string embeddings_input;  // the path field
  const AsyncLoad* loader = nullptr;  // the load in progress, if any, for its progress bar
  RecentFiles recent;
  std::string export_stem = "poslab";  // files are STEM-VIEW.png and so on
  std::string export_folder = "poslab-figures";  // "Export all views" writes FOLDER/VIEW.png …
  int export_all_scale = 2;
  std::string session_path = "poslab-session.json";

 private:
  // The panel's sections, top to bottom.
  void draw_sentence(State& state, const Workspace& workspace);
  void draw_embeddings(State& state, const Workspace& workspace, ControlsActions& actions);
  void draw_encoding(State& state, const Workspace& workspace);
  void draw_bias(State& state);
  void draw_attention(State& state, const Workspace& workspace);
  void draw_view(State& state);
  void draw_compute(State& state);
  void draw_export(ControlsActions& actions);
  void draw_session(ControlsActions& actions);

  int sample_index_ = 0;
  int export_all_scale_index_ = 1;  // 2×
  std::error_code fs_error_;        // a path that cannot be examined is simply not a folder
  bool cross_open_ = false;
  ConfigField config_;  // the cross-attention box stays open while its sentence is empty
};

}  // namespace poslab

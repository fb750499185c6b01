#pragma once
// The window's application object, for gui.cpp (set-up, the frame's steps, drawing) and
// gui_actions.cpp (what the frame's requests do: loads, sessions, exports, the probe, rendering,
// shutting down). Nothing outside src/gui includes it: run_gui (gui.hpp) is the way in.
#include <imgui.h>
#include <imgui_internal.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "core/async_load.hpp"
#include "core/workspace.hpp"
#include "figures/launch.hpp"
#include "gpu/gpu_thread.hpp"
#include "gui/export_queue.hpp"
#include "gui/panels/animation_panel.hpp"
#include "gui/panels/controls_panel.hpp"
#include "gui/screen.hpp"
#include "gui/settings.hpp"
#include "gui/views/views.hpp"

struct GLFWwindow;

namespace poslab {

// The one place user-facing messages go: the status line shows the latest, stderr gets all.
struct StatusLine {
  std::string text;
  bool error = false;
  void info(std::string s) {
    std::fprintf(stderr, "poslab: %s\n", s.c_str());
    text = std::move(s);
    error = false;
  }
  void fail(std::string s) {
    std::fprintf(stderr, "poslab: error: %s\n", s.c_str());
    text = std::move(s);
    error = true;
  }
};

// The window's life: set up, then one frame after another in named steps, then shut down. The
// window and its OpenGL context are made before and destroyed after.
class Gui {
 public:
  Gui(const GuiOptions& options, GLFWwindow* window);
  int run();

 private:
  void start_gpu_thread();
  void load_initial_embeddings();
  void frame();
  void log_frame();
  void rescale_if_needed();
  void draw_window();
  void draw_views();
  void draw_tab(ViewId view);
  void draw_play_bar(ViewId view);
  void draw_attention_tab();
  void draw_tour_tab(bool entering);
  void draw_kept_results_note(ViewId view);
  void draw_train_tab();
  void draw_bottom_bar(bool narrow);
  void update_model_results();
  ControlsActions take_hotkeys(ControlsActions actions);
  void finish_load();
  void apply_model_config();
  void save_session();
  void open_session();
  std::vector<ShownModelView> shown_model_views() const;
  void start_exports(const ControlsActions& requested);
  void export_training();
  void publish_probe();
  // Exports say when they replace a file: noted when asked for, said when written.
  void note_if_replacing(const std::string& path);
  // "wrote A (…); B (SVG)": every file an export wrote on one status line, each that replaced a
  // file of its name saying so.
  std::string wrote(const std::vector<std::string>& written);
  void render_and_screenshot();
  void shut_down();

  const GuiOptions& options_;
  GLFWwindow* window_;
  GLFWwindow* gpu_window_ = nullptr;
  ImGuiIO& io_;
  StatusLine status_;
  GuiSettings settings_;
  float chosen_scale_ = 0.0f;  // 0: the monitor's
  ScreenScale scale_;
  plot::FontSet fonts_;
  std::string renderer_;
  std::unique_ptr<gpu::GpuThread> gpu_backend_;
  std::string gpu_unavailable_;

  State state_;
  Workspace workspace_;
  ControlsPanel controls_;
  AsyncLoad loader_;  // user-requested loads run off the UI thread
  Views views_;
  AnimationPanel animation_panel_;
  ExportQueue exports_;  // the views' exports, off the UI thread
  ExportQueue::Report report_export_;
  std::set<std::string> replacing_;  // export paths that held a file when the export was asked for

  ViewId active_view_ = ViewId::Attention;
  std::optional<ViewId> select_view_;  // a tab to bring to the front on the next frame
  ViewId before_tour_ = ViewId::Attention;  // the tab to go back to when the tour is left
  bool play_article_ = false;               // a tour step's "Play the article's animation" button
  // A real model's layer as the attention view's results, rebuilt when its run or layer changes.
  const ModelRun* model_run_ = nullptr;
  std::optional<Results> model_results_;
  std::uint64_t model_results_version_ = ~0ull;
  int model_results_layer_ = -1;
  bool model_results_unchanged_ = false;
  std::string backend_said_;  // the backend choice last reported on stderr
  std::string workspace_failure_said_;  // the computation's failure the status line shows

  int frame_ = 0;
  bool first_frame_ = true;
  bool tour_opened_ = false;  // the tour tab was shown once (--step and --lang apply then)     // the tab of --view is selected once, then the user's clicks rule
  bool show_controls_ = false;  // in a narrow window: the controls instead of the views
  bool show_shortcuts_ = false;  // the Shortcuts window (F1)
  bool window_shot_requested_ = false;  // Ctrl+Shift+S: the window as STEM-window.png, after this frame is drawn
  bool load_requested_ = false;
  bool run_model_on_load_ = false;  // the load was asked for in the Model tab: run the model once it is in
  float info_height_ = -1.0f;   // the attention tab's text under the heatmap, measured each frame
  ImRect view_panel_;           // where the view can be seen (screen units), for the layout report
  int exit_code_ = 0;
  // --frame-log: each frame's duration, whether a load, the attention or the shown view's figure
  // was in flight off the UI thread, the table's size and the tab, to show that the window keeps
  // drawing meanwhile.
  std::string frame_log_ = "frame,ms,loading,rows,computing,drawing,view\n";
  bool view_busy_ = false;
  // New results were installed after the views drew this frame: they show them only next frame.
  bool results_arrived_ = false;
  std::chrono::steady_clock::time_point last_frame_ = std::chrono::steady_clock::now();
};

}  // namespace poslab

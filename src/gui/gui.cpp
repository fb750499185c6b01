#include "gui/gui.hpp"
#include "gui/gui_app.hpp"

#include <glad/gl.h>
// glad first: GLFW must not pull in another GL header.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>  // the view panel's visible rectangle, for the layout report

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/export_data.hpp"
#include "core/formats/formats.hpp"
#include "core/model/model_config.hpp"
#include "core/session.hpp"
#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/gpu_thread.hpp"
#include "plot/draw.hpp"
#include "plot/render.hpp"
#include "figures/assets.hpp"
#include "gui/panels/animation_panel.hpp"
#include "gui/panels/controls_panel.hpp"
#include "figures/export.hpp"
#include "gui/export_queue.hpp"
#include "gui/show_figure.hpp"
#include "gui/settings.hpp"
#include "gui/panels/info_panel.hpp"
#include "gui/probe.hpp"
#include "gui/views/hub_box.hpp"
#include "gui/views/views.hpp"
#include "gui/screen.hpp"
#include "gui/shortcuts.hpp"

namespace poslab {

namespace {

std::vector<std::string> g_dropped;  // filled by GLFW's drop callback, drained each frame

// SIGTERM (the session ending, `kill`) and SIGINT (Ctrl+C in the terminal) close the window as its
// close button does, so that the session is still remembered; a second one ends PosLab at once.
volatile std::sig_atomic_t g_stop = 0;
void on_stop_signal(int signal) {
  g_stop = 1;
  std::signal(signal, SIG_DFL);
}

void on_drop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count; ++i) g_dropped.emplace_back(paths[i]);
}

// Hotkeys are caught in GLFW's key callback: ImGui 1.86 keeps only whether a key is down at the
// start of a frame, so a press and release inside one frame (fast typing, xdotool) would be lost.
struct Hotkey {
  int key;
  int mods;
};
std::vector<Hotkey> g_hotkeys;

void on_key(GLFWwindow*, int key, int, int action, int mods) {
  if (action == GLFW_PRESS && (mods & GLFW_MOD_CONTROL)) g_hotkeys.push_back({key, mods});
  // ← and → step through the tour (held down, they repeat).
  if ((action == GLFW_PRESS || action == GLFW_REPEAT) && (key == GLFW_KEY_LEFT || key == GLFW_KEY_RIGHT) && mods == 0)
    g_hotkeys.push_back({key, mods});
  if (action == GLFW_PRESS && key == GLFW_KEY_F1) g_hotkeys.push_back({key, mods});
}

// The controls beside the views need this many points; a narrower window shows one or the other.
constexpr float kControlsWidth = 390.0f, kNarrowWindow = 900.0f;

}  // namespace

Gui::Gui(const GuiOptions& options, GLFWwindow* window)
    : options_(options), window_(window), io_(ImGui::GetIO()), state_(options.state) {
  auto loaded_settings = load_settings();
  if (!loaded_settings) status_.fail(loaded_settings.error() + " — using the defaults");
  settings_ = loaded_settings ? *loaded_settings : GuiSettings{};
  chosen_scale_ = options.ui_scale > 0.0f ? options.ui_scale : settings_.ui_scale;
  scale_ = screen_scale_of(window_, chosen_scale_);
  fonts_ = bake_fonts(scale_, false);
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  if (!fonts_.warning.empty()) status_.fail(fonts_.warning);
  renderer_ = gpu::describe_context();
  start_gpu_thread();
  // The command line's options are the first model's changes (`--model DIR --encoding none`);
  // a model the last session reopens starts as its folder has it, as one opened in the window.
  if (!options.remember_session) views_.model.first_model_takes_the_state();
  if (options.remember_session) {
    if (auto last = load_session(last_session_path())) state_ = last->state;  // none yet is fine
  }
  workspace_.set_gpu_backend(gpu_backend_.get(), gpu_unavailable_, renderer_);
  load_initial_embeddings();
  report_export_ = [this](const Status& s, const std::vector<std::string>& written, const std::string& folder) {
    if (!s) return status_.fail(s.error());
    if (!folder.empty()) return status_.info("wrote " + std::to_string(written.size()) + " files into " + folder);
    if (!written.empty()) status_.info(wrote(written));
  };
}


// The GPU path, or why there is none: the info panel shows the driver's full log. It runs on a
// thread of its own, in a hidden window's context shared with this one (its textures are drawn
// here), so that a long run on it never holds a frame up.
void Gui::start_gpu_thread() {
  gpu_window_ = open_gpu_context(window_);
  if (!gpu_window_)
    gpu_unavailable_ = "no OpenGL context could be made for the GPU thread";
  else if (auto created = gpu::GpuThread::start([w = gpu_window_] { glfwMakeContextCurrent(w); }))
    gpu_backend_ = std::move(*created);
  else
    gpu_unavailable_ = created.error();
  if (!gpu_unavailable_.empty()) {
    std::fprintf(stderr, "poslab: GPU path unavailable: %s\n", gpu_unavailable_.c_str());
    status_.text = "GPU path unavailable: the CPU computes attention (details under the heatmap)";
    status_.error = true;
  }
}

void Gui::load_initial_embeddings() {
  controls_.loader = &loader_;
  controls_.recent.load();
  loader_.limit_rate(options_.load_rate * 1e6);
  if (!options_.load.empty()) loader_.start(options_.load, state_.vocab_path, state_.tensor_name);
  controls_.embeddings_input =
      state_.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state_.embeddings_path;
  if (auto s = workspace_.load_embeddings(controls_.embeddings_input, state_.vocab_path, state_.tensor_name); !s)
    status_.fail(s.error());
}

int Gui::run() {
  while (!glfwWindowShouldClose(window_)) frame();
  shut_down();
  return exit_code_;
}

void Gui::frame() {
  if (g_stop) glfwSetWindowShouldClose(window_, GLFW_TRUE);
  log_frame();
  glfwPollEvents();
  for (const auto& path : g_dropped) controls_.embeddings_input = path;
  load_requested_ = !g_dropped.empty();
  g_dropped.clear();
  rescale_if_needed();
  forget_figure_placement();
  probe::begin_frame(scale_.pixels_per_unit);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  draw_window();
  render_and_screenshot();
}

void Gui::log_frame() {
  if (options_.frame_log.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  char line[160];
  const std::string_view view = to_string(active_view_);
  std::snprintf(line, sizeof line, "%d,%.2f,%d,%d,%d,%d,%.*s\n", frame_,
                std::chrono::duration<double, std::milli>(now - last_frame_).count(), loader_.running() ? 1 : 0,
                workspace_.embeddings().size(), workspace_.computing() ? 1 : 0, view_busy_ ? 1 : 0,
                static_cast<int>(view.size()), view.data());
  frame_log_ += line;
  last_frame_ = now;
}

// Another monitor, a changed setting: the fonts are baked again before the frame uses them.
void Gui::rescale_if_needed() {
  if (const ScreenScale now = screen_scale_of(window_, chosen_scale_); !(now == scale_)) {
    scale_ = now;
    fonts_ = bake_fonts(scale_, true);
  }
}

// The frame's ImGui window (controls, views, bottom bar), then what the user asked for in it.
void Gui::draw_window() {
  const float units = scale_.units_per_point();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io_.DisplaySize);
  ImGui::Begin("PosLab", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBringToFrontOnFocus);
  const bool narrow = io_.DisplaySize.x < kNarrowWindow * units;
  const float bar_height = ImGui::GetFrameHeightWithSpacing();
  ControlsActions actions;
  if (!narrow || show_controls_) {
    ImGui::BeginChild("controls", ImVec2(narrow ? 0.0f : kControlsWidth * units, -bar_height), true);
    actions = controls_.draw(state_, workspace_, active_view_, active_view_ == ViewId::Attention && model_run_);
    ImGui::EndChild();
    if (!narrow) ImGui::SameLine();
  }
  update_model_results();
  view_panel_ = ImRect();
  if (!narrow || !show_controls_) {
    // Figures fill this panel; one whose smallest layout is wider still is drawn smaller.
    ImGui::BeginChild("view", ImVec2(0, -bar_height), true, ImGuiWindowFlags_HorizontalScrollbar);
    draw_views();
    view_panel_ = ImGui::GetCurrentWindow()->InnerClipRect;
    // How far the tab's content runs past the panel (0: it fits; a test reads it at a large scale).
    if (probe::enabled()) probe::value("view: sideways scroll", std::to_string(static_cast<int>(ImGui::GetScrollMaxX())));
    ImGui::EndChild();
  }
  draw_bottom_bar(narrow);
  ImGui::End();
  draw_shortcuts_window(show_shortcuts_);

  const ControlsActions requested = take_hotkeys(actions);
  // Act on the frame's requests, then recompute if a pipeline input changed.
  if (actions.load_embeddings || load_requested_) {
    loader_.start(controls_.embeddings_input, state_.vocab_path, state_.tensor_name);
    status_.info("loading " + controls_.embeddings_input + " …");
  }
  if (actions.cancel_load) loader_.cancel();
  finish_load();
  // Which path computes, said on stderr whenever it changes (the info panel says it too).
  if (const BackendChoice choice = workspace_.backend_choice(state_.backend); choice.reason != backend_said_) {
    backend_said_ = choice.reason;
    std::fprintf(stderr, "poslab: attention: %s\n", backend_said_.c_str());
  }
  // Off the UI thread: the window keeps drawing, and the views show the previous results until then.
  const auto drawn_version = workspace_.version();
  if (auto s = workspace_.update_async(state_); !s) {
    if (status_.text != s.error()) status_.fail(s.error());
    workspace_failure_said_ = s.error();
  } else if (!workspace_failure_said_.empty()) {
    // Settings that compute again: the refusal no longer holds, so the status line lets it go.
    if (status_.error && status_.text == workspace_failure_said_) status_ = {};
    workspace_failure_said_.clear();
  }
  results_arrived_ = workspace_.version() != drawn_version;
  if (actions.save_session) save_session();
  if (actions.open_session) open_session();
  start_exports(requested);
  export_training();
  exports_.pump(report_export_);
  // Read once the views drew: the probe of this frame says it (a test waits for busy = no).
  view_busy_ = views_.busy(active_view_);
  publish_probe();
}

// The model the Model tab runs: its layer becomes the attention tab's results.
void Gui::update_model_results() {
  ModelView& model = views_.model;
  model.update(state_);
  animation_panel_.set_model(model.shared_model());
  model_run_ = state_.view.layer >= 0 && model.model() ? model.run() : nullptr;
  if (!model_run_) return;
  const bool unchanged = model.shows_unchanged();
  if (model_results_version_ == model.version() && model_results_layer_ == model_run_->request.layer &&
      model_results_unchanged_ == unchanged)
    return;
  const ForwardResult& shown = unchanged ? model_run_->unchanged : model_run_->shown();
  const std::string description =
      unchanged && model_run_->changed ? "unchanged · " + loss_text(model_run_->unchanged) : model_run_->describe();
  model_results_ = layer_results(shown, model_run_->request.layer, model.model()->config(), description);
  model_results_version_ = model.version();
  model_results_layer_ = model_run_->request.layer;
  model_results_unchanged_ = unchanged;
}

// One tab per row of the view registry that is a tab, in its order; --view selects one tab on
// the first frame, a clicked head the Attention tab, leaving the tour the tab it was entered from.
void Gui::draw_views() {
  // Every tab stays in the bar, clickable, at any UI scale: tabs that do not all fit narrow (their
  // labels cut) rather than scroll out of it, since ImGui's scroll arrows select the next tab
  // instead of scrolling (Tour, Model and Train were out of reach at 150 % in 1440 × 900). The
  // list button at the bar's start names every tab in full.
  if (!ImGui::BeginTabBar("views", ImGuiTabBarFlags_FittingPolicyResizeDown | ImGuiTabBarFlags_TabListPopupButton)) return;
  // The tab asked for in the frame before; drawing a tab may ask for another for the next.
  const std::optional<ViewId> selecting = select_view_;
  select_view_.reset();
  play_article_ = false;
  for (const ViewInfo& info : view_registry()) {
    if (!info.is_tab()) continue;
    const bool select = (first_frame_ && view_info(options_.initial_view).home == info.id) || selecting == info.id;
    const std::string label(info.tab);
    // ImGui 1.86 counts a tab scrolled out of the bar as the panel's content, so that the whole
    // panel would scroll sideways for the tabs that do not fit: the bar scrolls them itself.
    ImGuiWindow* panel = ImGui::GetCurrentWindow();
    const float content_right = panel->DC.CursorMaxPos.x;
    const bool open = ImGui::BeginTabItem(label.c_str(), nullptr, select ? ImGuiTabItemFlags_SetSelected : 0);
    panel->DC.CursorMaxPos.x = content_right;
    probe::item("tab: " + label);
    if (!open) continue;
    const bool entering = active_view_ != info.id;
    if (entering && info.id == ViewId::Tour) before_tour_ = active_view_;
    active_view_ = info.id;
    // Play and export the view's parameter (and the progress of an animation's export on every tab).
    draw_play_bar(info.id);
    draw_kept_results_note(info.id);
    if (info.id == ViewId::Tour) draw_tour_tab(entering || first_frame_);
    else draw_tab(info.id);
    ImGui::EndTabItem();
  }
  if (play_article_) select_view_ = ViewId::Trajectory;
  ImGui::EndTabBar();
  first_frame_ = false;
}

// The play bar moves what the tab shows: on the Attention tab showing a model's layer, the
// model's settings (its layer, its base), never the explorer's.
void Gui::draw_play_bar(ViewId view) {
  if (view != ViewId::Attention || !model_run_)
    return animation_panel_.draw_bar(view, state_, workspace_, gpu_backend_.get(), renderer_);
  State settings = views_.model.settings();
  animation_panel_.draw_bar(view, settings, workspace_, gpu_backend_.get(), renderer_);
  views_.model.change_settings(settings, state_);
}

void Gui::draw_tab(ViewId view) {
  switch (view) {
    case ViewId::Attention: return draw_attention_tab();
    case ViewId::Dog: return views_.dog.draw(state_, workspace_, fonts_);
    case ViewId::Patterns: return views_.patterns.draw(state_, workspace_, fonts_);
    case ViewId::Trajectory: return views_.trajectory.draw(state_, workspace_, fonts_);
    case ViewId::Magnitude: return views_.magnitude.draw(state_, workspace_, fonts_);
    case ViewId::Shift: return views_.shift.draw(state_, workspace_, fonts_);
    case ViewId::Rope2d: return views_.rope2d.draw(state_, fonts_);
    case ViewId::RopeImage: return views_.rope_image.draw(state_, fonts_);
    case ViewId::Bias: return views_.bias.draw(state_, workspace_, fonts_);
    case ViewId::Frequencies: return views_.frequencies.draw(state_, workspace_, fonts_);
    case ViewId::Distance: return views_.distance.draw(workspace_, fonts_);
    case ViewId::Model: {
      bool show_attention = false;
      std::string open;
      views_.model.draw(state_, fonts_, controls_.recent.paths(), show_attention, open);
      if (show_attention) select_view_ = ViewId::Attention;
      if (!open.empty()) {  // as Load does: on the loader thread, then the folder's config.json
        controls_.embeddings_input = open;
        load_requested_ = true;
        run_model_on_load_ = true;  // opened here to be run
      }
      return;
    }
    case ViewId::Train: return draw_train_tab();
    case ViewId::Papers: return views_.papers.draw(fonts_, views_.model.model() ? views_.model.folder() : std::string());
    default: return;  // the tour has its own step; the other rows are drawn inside a tab
  }
}

void Gui::draw_attention_tab() {
  // The heatmap fills what the text under it leaves (measured in the frame before).
  if (info_height_ < 0.0f) info_height_ = 7.0f * ImGui::GetTextLineHeightWithSpacing();
  float text_top = 0.0f;
  if (model_run_ && model_results_) {
    // A real model's layer (the Model tab runs it): its own heads, computed on the worker.
    const std::uint64_t version = (1ull << 62) | (model_results_unchanged_ ? 1ull << 61 : 0) | views_.model.version();
    views_.attention.draw(state_, &*model_results_, version, nullptr, fonts_, info_height_);
    text_top = ImGui::GetCursorPosY();
    ImGui::TextWrapped("%s", model_results_->description.c_str());
    probe::value("attention shows", model_results_->description);
    ImGui::TextDisabled(
        "attention of the model's own forward pass on %s, off the UI thread (%.0f ms); "
        "the Model tab runs it, clear its checkbox for embeddings and random W again",
        model_run_->shown().backend.c_str(), model_run_->shown().milliseconds);
  } else {
    const bool on_gpu = workspace_.backend_choice(state_.backend).backend == Backend::Gpu;
    // The GPU paints the cells from its buffers once they hold the shown results (and never
    // waits for a run); a software renderer would paint them slower than the CPU does.
    const bool gpu_paints = on_gpu && !workspace_.computing() && !is_software_renderer(renderer_);
    views_.attention.draw(state_, workspace_, gpu_paints ? gpu_backend_.get() : nullptr, fonts_, info_height_);
    text_top = ImGui::GetCursorPosY();
    draw_info_panel(state_, workspace_, renderer_ + " · " + views_.attention.cell_source());
  }
  info_height_ = ImGui::GetCursorPosY() - text_top;
}

// The tour takes the state over when its tab comes to the front and gives it back, exactly, when
// the reader leaves it (then the tab it was entered from comes back).
void Gui::draw_tour_tab(bool entering) {
  TourView& tour = views_.tour;
  if (entering) tour.enter(state_);
  if (entering && !tour_opened_) {  // the first time: --step N, --lang
    tour_opened_ = true;
    tour.language = options_.tour_language;
    if (options_.initial_view == ViewId::Tour) tour.go_to(options_.tour_step, state_);
  }
  if (!tour.started()) {
    ImGui::TextDisabled("the tour is over; open another tab, or this one again to start it afresh");
    return;
  }
  if (tour.draw_navigation(state_, fonts_)) {
    select_view_ = before_tour_ == ViewId::Tour ? ViewId::Attention : before_tour_;
    return;
  }
  // Below the navigation row, so that Next stays where it was on every step.
  play_article_ = animation_panel_.draw_tour_button(tour.step() + 1, state_, tour.language);
  tour.draw_slide(state_, workspace_, fonts_);
}

void Gui::draw_train_tab() {
  std::filesystem::path open;
  views_.train.draw(fonts_, open);
  if (open.empty()) return;
  // As `--model DIR` would, on a sequence of the model's own task: its last layer in the Attention
  // tab (the button says so), its heads in the Model tab.
  auto next = state_for_trained_model(state_, open);
  if (!next) return status_.fail(next.error());
  // The model runs with its own positions (the Model tab's); the explorer keeps its encoding and bias.
  next->model.encoding = state_.model.encoding;
  next->model.bias = state_.model.bias;
  state_ = *next;
  select_view_ = ViewId::Attention;
  controls_.embeddings_input = open.string();  // its table for the other views, as Load would
  load_requested_ = true;
  status_.info("opened " + open.string() + " on \"" + state_.model.sentence + "\", a sequence of its own task");
}

// The bottom bar: in a narrow window the switch between controls and views; progress; the status
// line; at the right end the UI scale menu.
void Gui::draw_bottom_bar(bool narrow) {
  const float units = scale_.units_per_point();
  const float bar_y = ImGui::GetCursorPosY();
  if (narrow) {
    if (ImGui::Button(show_controls_ ? "Views ▸" : "◂ Controls")) show_controls_ = !show_controls_;
    ImGui::SameLine();
  }
  if (ImGui::Button("Keys (F1)")) show_shortcuts_ = !show_shortcuts_;
  probe::item("shortcuts button");
  ImGui::SameLine();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float menu_width =
      ImGui::CalcTextSize("UI scale: auto, 100%").x + ImGui::GetFrameHeight() + 4.0f * style.FramePadding.x;
  const float menu_x = std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - menu_width);
  if (workspace_.computing()) {  // the attention for the newest settings, on its worker thread
    char label[64];
    std::snprintf(label, sizeof label, "computing … %.0f%% (%.1f s)", 100.0 * workspace_.progress(),
                  workspace_.computing_seconds());
    // As wide as its longest text, so that the text is never cut.
    const float width = std::max(160.0f * units, ImGui::CalcTextSize("computing … 100% (999.9 s)").x +
                                                     2.0f * style.FramePadding.x);
    ImGui::ProgressBar(static_cast<float>(workspace_.progress()), ImVec2(width, 0.0f), "");
    const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
    const ImVec2 text = ImGui::CalcTextSize(label);
    ImGui::GetWindowDrawList()->AddText(ImVec2(min.x + (max.x - min.x - text.x) * 0.5f, min.y + style.FramePadding.y),
                                        ImGui::GetColorU32(ImGuiCol_Text), label);
    probe::item("computing");
    probe::value("computing", label);
    // What seam 10 broke ("mputing … 10%"): the whole text inside the bar, for a test to read.
    probe::value("computing text fits", text.x <= max.x - min.x ? "yes" : "no");
    ImGui::SameLine();
  }
  if (exports_.busy()) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("exporting …");
    ImGui::SameLine();
  }
  if (!status_.text.empty()) {
    // Clipped before the menu: a long message must not run under it.
    const ImVec2 window_pos = ImGui::GetWindowPos();
    ImGui::PushClipRect(ImVec2(window_pos.x, window_pos.y),
                        ImVec2(window_pos.x + menu_x - style.ItemSpacing.x, window_pos.y + io_.DisplaySize.y), true);
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(status_.error ? ImVec4(1, 0.45f, 0.35f, 1) : ImVec4(0.6f, 0.85f, 0.6f, 1), "%s",
                       status_.text.c_str());
    ImGui::PopClipRect();
    probe::item("status line");
    // A message cut at the menu is read whole in a tooltip (a refusal's reason ends with its advice).
    const bool cut = ImGui::GetItemRectMax().x > window_pos.x + menu_x - style.ItemSpacing.x;
    if (cut && ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.0f);
      ImGui::TextUnformatted(status_.text.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    probe::value("status tooltip", cut && ImGui::IsItemHovered() ? "shown" : "none");
  }
  ImGui::SetCursorPos(ImVec2(menu_x, bar_y));
  if (ui_scale_menu(chosen_scale_, scale_, menu_width)) {
    settings_.ui_scale = chosen_scale_;
    if (auto s = save_settings(settings_); !s) status_.fail("could not save the UI scale: " + s.error());
  }
}

// Hotkeys (gui/shortcuts.cpp lists them): F1 the shortcuts, Ctrl+Q quits, Ctrl+E exports the PNG
// (with Shift at 2×), Ctrl+D the CSV; ← → step through the tour.
ControlsActions Gui::take_hotkeys(ControlsActions actions) {
  for (const Hotkey& h : g_hotkeys) {
    if (h.key == GLFW_KEY_F1) show_shortcuts_ = !show_shortcuts_;
    if (h.key == GLFW_KEY_Q && (h.mods & GLFW_MOD_CONTROL)) glfwSetWindowShouldClose(window_, GLFW_TRUE);
    if (h.key == GLFW_KEY_S && (h.mods & GLFW_MOD_CONTROL) && (h.mods & GLFW_MOD_SHIFT)) window_shot_requested_ = true;
    if (io_.WantTextInput) break;  // Ctrl+E and Ctrl+D mean something else in a text field
    if (h.key == GLFW_KEY_E) actions.export_png_scale = (h.mods & GLFW_MOD_SHIFT) ? 2 : 1;
    if (h.key == GLFW_KEY_D) actions.export_csv = true;
    if (active_view_ == ViewId::Tour && h.key == GLFW_KEY_RIGHT) views_.tour.next(state_);
    if (active_view_ == ViewId::Tour && h.key == GLFW_KEY_LEFT) views_.tour.previous(state_);
  }
  g_hotkeys.clear();
  return actions;
}

std::string last_session_path() { return (config_dir() / "last-session.json").string(); }

int run_gui(const GuiOptions& options) {
  // Before the window exists: a SIGTERM that comes once it shows but while the first embeddings
  // still load (a second or more on a busy machine) closes it at the first frame, remembering the
  // session, instead of killing PosLab with nothing saved.
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  install_window_model_resolver();
  glfwSetErrorCallback([](int code, const char* text) { std::fprintf(stderr, "poslab: GLFW error %d: %s\n", code, text); });
  if (!glfwInit()) {
    std::fprintf(stderr, "poslab: error: cannot open a window (no display?). `poslab export` works without one.\n");
    return 1;
  }
  bool gl43 = false;
  GLFWwindow* window = open_window(options, gl43);
  if (!window) {
    std::fprintf(stderr, "poslab: error: no OpenGL 3.3 context is available\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress))) {
    std::fprintf(stderr, "poslab: error: the OpenGL loader failed\n");
    return 1;
  }
  glfwSetDropCallback(window, on_drop);
  glfwSetKeyCallback(window, on_key);  // before ImGui's backend, which chains to it
  if (!options.probe.empty()) probe::enable(options.probe);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  plot::add_figure_glyphs(tour_japanese_text());  // the tour's Japanese, and no more of the CJK font
  // The figures' text measure bakes its atlas on first use (about 200 ms): here, before the first
  // frame, rather than in the frame that first lays out a heatmap.
  plot::figure_text_measure();
  int exit_code = 0;
  {
    // Destroyed while the window's context is current: its views own textures.
    auto gui = std::make_unique<Gui>(options, window);
    exit_code = gui->run();
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

}  // namespace poslab

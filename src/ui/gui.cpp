#include "ui/gui.hpp"

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
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/export_data.hpp"
#include "core/formats/formats.hpp"
#include "core/formats/model_config.hpp"
#include "core/session.hpp"
#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/gpu_thread.hpp"
#include "plot/draw.hpp"
#include "plot/render.hpp"
#include "ui/assets.hpp"
#include "ui/attention_view.hpp"
#include "ui/animation_panel.hpp"
#include "ui/model_view.hpp"
#include "ui/train_view.hpp"
#include "ui/controls_panel.hpp"
#include "ui/export.hpp"
#include "ui/export_queue.hpp"
#include "ui/figure_fit.hpp"
#include "ui/settings.hpp"
#include "ui/bias_view.hpp"
#include "ui/distance_view.hpp"
#include "ui/dog_view.hpp"
#include "ui/frequencies_view.hpp"
#include "ui/magnitude_view.hpp"
#include "ui/patterns_view.hpp"
#include "ui/rope2d_view.hpp"
#include "ui/rope_image_view.hpp"
#include "ui/shift_view.hpp"
#include "ui/tour_view.hpp"
#include "ui/trajectory_view.hpp"
#include "ui/info_panel.hpp"

namespace poslab {

namespace {

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
}

// The window's size in pixels: --size, else 1440 × 900 points at the primary monitor's scale,
// no larger than its work area (a HiDPI laptop gets a window as large to the eye as a desktop's).
std::pair<int, int> window_size(const GuiOptions& options) {
  if (options.width > 0 && options.height > 0) return {options.width, options.height};
  float sx = 1.0f, sy = 1.0f;
  int x = 0, y = 0, w = 1 << 16, h = 1 << 16;
  if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) {
    glfwGetMonitorContentScale(monitor, &sx, &sy);
    glfwGetMonitorWorkarea(monitor, &x, &y, &w, &h);
  }
  const float scale = std::clamp(std::max(sx, sy), kMinUiScale, kMaxUiScale);
  return {std::min(static_cast<int>(1440.0f * scale), std::max(w, 200)),
          std::min(static_cast<int>(900.0f * scale), std::max(h, 200))};
}

GLFWwindow* open_window(const GuiOptions& options, bool& gl43) {
  const auto [width, height] = window_size(options);
  // The X11 class the desktop entry's StartupWMClass names: docks match the window to the
  // installed launcher and its icon.
  glfwWindowHintString(GLFW_X11_CLASS_NAME, "poslab");
  glfwWindowHintString(GLFW_X11_INSTANCE_NAME, "poslab");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(width, height, "PosLab", nullptr, nullptr);
  gl43 = window != nullptr;
  if (!window) {  // no compute shaders then, but the app still runs on the CPU path
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    window = glfwCreateWindow(width, height, "PosLab", nullptr, nullptr);
  }
  return window;
}

// A hidden 1 × 1 window whose context shares this window's objects (same version hints), for
// the GPU thread; null when the driver will not make one.
GLFWwindow* open_gpu_context(GLFWwindow* window) {
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* hidden = glfwCreateWindow(1, 1, "PosLab GPU", nullptr, window);
  glfwWindowHint(GLFW_VISIBLE, GLFW_TRUE);
  return hidden;
}

// The style at `units_per_point` ImGui units per point (paddings, spacings, roundings).
void apply_style(float units_per_point) {
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  ImGui::StyleColorsDark();
  style.WindowRounding = 0.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.ItemSpacing = ImVec2(8, 5);
  style.ScaleAllSizes(units_per_point);
}

// How large the interface is drawn: pixels per point (the UI scale), and framebuffer pixels per
// window unit (1 on X11, where GLFW counts in pixels; 2 on a Wayland HiDPI output).
struct ScreenScale {
  float pixels_per_point = 1.0f;
  float pixels_per_unit = 1.0f;
  float monitor = 1.0f;  // GLFW's window content scale, which Auto follows
  bool operator==(const ScreenScale&) const = default;
  float units_per_point() const { return pixels_per_point / pixels_per_unit; }
};

// The scale for this frame: `chosen` (--ui-scale or the setting) when above 0, else the content
// scale of the monitor the window is on now (it changes when the window moves to another).
ScreenScale screen_scale_of(GLFWwindow* window, float chosen) {
  ScreenScale s;
  float cx = 1.0f, cy = 1.0f;
  glfwGetWindowContentScale(window, &cx, &cy);
  s.monitor = std::clamp(std::max(cx, cy), kMinUiScale, kMaxUiScale);
  s.pixels_per_point = chosen > 0.0f ? std::clamp(chosen, kMinUiScale, kMaxUiScale) : s.monitor;
  int w = 0, h = 0, fb_w = 0, fb_h = 0;
  glfwGetWindowSize(window, &w, &h);
  glfwGetFramebufferSize(window, &fb_w, &fb_h);
  if (w > 0 && fb_w > 0) s.pixels_per_unit = static_cast<float>(fb_w) / static_cast<float>(w);
  return s;
}

// Bakes the fonts at the scale's pixels per point, so that text is rasterised at the size it is
// shown (crisp, never an upscale), and sizes the style to match. With the renderer running, its
// font texture is made again.
plot::FontSet bake_fonts(const ScreenScale& scale, bool renderer_running) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const plot::FontSet fonts =
      plot::FontSet::add_to(*io.Fonts, scale.pixels_per_point, scale.pixels_per_point < 1.5f ? 2 : 1);
  io.FontDefault = fonts.ui;
  io.FontGlobalScale = 1.0f / scale.pixels_per_unit;
  apply_style(scale.units_per_point());
  if (renderer_running) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  return fonts;
}

// The bottom bar's UI scale menu; true when the reader picked another scale (0: Auto).
bool ui_scale_menu(float& chosen, const ScreenScale& scale, float width) {
  static const float choices[] = {1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};
  char preview[64];
  if (chosen > 0.0f)
    std::snprintf(preview, sizeof preview, "UI scale %.0f%%", chosen * 100.0f);
  else
    std::snprintf(preview, sizeof preview, "UI scale: auto, %.0f%%", scale.monitor * 100.0f);
  ImGui::SetNextItemWidth(width);
  bool changed = false;
  if (ImGui::BeginCombo("##ui-scale", preview)) {
    char label[64];
    std::snprintf(label, sizeof label, "Auto: the monitor's %.0f%%", scale.monitor * 100.0f);
    if (ImGui::Selectable(label, chosen <= 0.0f)) changed = chosen > 0.0f, chosen = 0.0f;
    for (float c : choices) {
      std::snprintf(label, sizeof label, "%.0f%%", c * 100.0f);
      if (ImGui::Selectable(label, chosen == c)) changed = chosen != c, chosen = c;
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The size of the interface and of the figures on screen (exports keep their own sizes).\n"
        "Auto follows the monitor's scale; --ui-scale S sets it for one run.");
  return changed;
}

// One line on where the shown view's panel and figure lie in the screenshot, in pixels, so that
// a test (or a person sizing the window) can check that the figure fills the panel and stays in it.
void print_layout(std::string_view view, const ScreenScale& scale, const ImRect& panel, const FigurePlacement& figure) {
  const float px = scale.pixels_per_unit;
  if (panel.GetWidth() <= 0.0f) {
    std::printf("layout: %.2f px/pt (monitor %.2f), the controls in place of the views\n", scale.pixels_per_point,
                scale.monitor);
    return;
  }
  std::printf("layout: view %.*s, %.2f px/pt (monitor %.2f), panel %.0f,%.0f,%.0f,%.0f", static_cast<int>(view.size()),
              view.data(), scale.pixels_per_point, scale.monitor, panel.Min.x * px, panel.Min.y * px, panel.Max.x * px,
              panel.Max.y * px);
  if (figure.drawn)
    std::printf(", figure %.0f,%.0f,%.0f,%.0f, zoom %.3f\n", figure.min.x * px, figure.min.y * px, figure.max.x * px,
                figure.max.y * px, figure.zoom);
  else
    std::printf(", no figure\n");
}

// The controls beside the views need this many points; a narrower window shows one or the other.
constexpr float kControlsWidth = 390.0f, kNarrowWindow = 900.0f;

}  // namespace

std::string last_session_path() { return (config_dir() / "last-session.json").string(); }

int run_gui(const GuiOptions& options) {
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

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  plot::add_figure_glyphs(tour_japanese_text());  // the tour's Japanese, and no more of the CJK font
  // The figures' text measure bakes its atlas on first use (about 200 ms): here, before the first
  // frame, rather than in the frame that first lays out a heatmap.
  plot::figure_text_measure();
  StatusLine status;
  auto loaded_settings = load_settings();
  if (!loaded_settings) status.fail(loaded_settings.error() + " — using the defaults");
  GuiSettings settings = loaded_settings ? *loaded_settings : GuiSettings{};
  float chosen_scale = options.ui_scale > 0.0f ? options.ui_scale : settings.ui_scale;  // 0: the monitor's
  ScreenScale scale = screen_scale_of(window, chosen_scale);
  plot::FontSet fonts = bake_fonts(scale, false);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  if (!fonts.warning.empty()) status.fail(fonts.warning);
  const std::string renderer = gpu::describe_context();

  // The GPU path, or why there is none: the info panel shows the driver's full log. It runs on a
  // thread of its own, in a hidden window's context shared with this one (its textures are drawn
  // here), so that a long run on it never holds a frame up.
  GLFWwindow* gpu_window = open_gpu_context(window);
  std::unique_ptr<gpu::GpuThread> gpu_backend;
  std::string gpu_unavailable;
  if (!gpu_window)
    gpu_unavailable = "no OpenGL context could be made for the GPU thread";
  else if (auto created = gpu::GpuThread::start([gpu_window] { glfwMakeContextCurrent(gpu_window); }))
    gpu_backend = std::move(*created);
  else
    gpu_unavailable = created.error();
  if (!gpu_unavailable.empty()) {
    std::fprintf(stderr, "poslab: GPU path unavailable: %s\n", gpu_unavailable.c_str());
    status.text = "GPU path unavailable: the CPU computes attention (details under the heatmap)";
    status.error = true;
  }

  State state = options.state;
  if (options.remember_session) {
    if (auto last = load_session(last_session_path())) state = last->state;  // none yet is fine
  }
  Workspace workspace;
  workspace.set_gpu_backend(gpu_backend.get(), gpu_unavailable, renderer);
  ControlsPanel controls;
  AsyncLoad loader;  // user-requested loads run off the UI thread
  controls.loader = &loader;
  controls.recent.load();
  loader.limit_rate(options.load_rate * 1e6);
  if (!options.load.empty()) loader.start(options.load, state.vocab_path, state.tensor_name);
  controls.embeddings_input = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
  if (auto s = workspace.load_embeddings(controls.embeddings_input, state.vocab_path, state.tensor_name); !s) status.fail(s.error());
  AttentionView attention_view;
  FrequenciesView frequencies_view;
  DistanceView distance_view;
  BiasView bias_view;
  MagnitudeView magnitude_view;
  PatternsView patterns_view;
  ShiftView shift_view;
  DogView dog_view;
  Rope2dView rope2d_view;
  RopeImageView rope_image_view;
  TrajectoryView trajectory_view;
  TourView tour_view;
  AnimationPanel animation_panel;
  ExportQueue exports;  // the views' exports, off the UI thread
  const ExportQueue::Report report_export = [&status](const Status& s, const std::vector<std::string>& written,
                                                       const std::string& folder) {
    if (!s) return status.fail(s.error());
    if (!folder.empty()) return status.info("wrote " + std::to_string(written.size()) + " files into " + folder);
    for (const auto& w : written) status.info("wrote " + w);
  };
  ModelView model_view;
  TrainView train_view;
  ExportView active_view = ExportView::Attention;
  std::optional<ExportView> select_view;  // a tab to bring to the front on the next frame
  // A real model's layer as the attention view's results, rebuilt when its run or layer changes.
  std::optional<Results> model_results;
  std::uint64_t model_results_version = ~0ull;
  int model_results_layer = -1;
  std::string backend_said;  // the backend choice last reported on stderr

  int frame = 0;
  bool first_frame = true;  // the tab of --view is selected once, then the user's clicks rule
  bool show_controls = false;  // in a narrow window: the controls instead of the views
  float info_height = -1.0f;   // the attention tab's text under the heatmap, measured each frame
  int exit_code = 0;
  // --frame-log: each frame's duration, whether a load, the attention or the shown view's figure
  // was in flight off the UI thread, the table's size and the tab, to show that the window keeps
  // drawing meanwhile.
  std::string frame_log = "frame,ms,loading,rows,computing,drawing,view\n";
  bool view_busy = false;  // the shown view's figure is being built off the UI thread
  auto last_frame = std::chrono::steady_clock::now();
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  while (!glfwWindowShouldClose(window)) {
    if (g_stop) glfwSetWindowShouldClose(window, GLFW_TRUE);
    if (!options.frame_log.empty()) {
      const auto now = std::chrono::steady_clock::now();
      char line[160];
      const std::string_view view = to_string(active_view);
      std::snprintf(line, sizeof line, "%d,%.2f,%d,%d,%d,%d,%.*s\n", frame,
                    std::chrono::duration<double, std::milli>(now - last_frame).count(), loader.running() ? 1 : 0,
                    workspace.embeddings().size(), workspace.computing() ? 1 : 0, view_busy ? 1 : 0,
                    static_cast<int>(view.size()), view.data());
      frame_log += line;
      last_frame = now;
    }
    glfwPollEvents();
    for (const auto& path : g_dropped) controls.embeddings_input = path;
    bool load_requested = !g_dropped.empty();
    g_dropped.clear();

    // Another monitor, a changed setting: the fonts are baked again before the frame uses them.
    if (const ScreenScale now = screen_scale_of(window, chosen_scale); !(now == scale)) {
      scale = now;
      fonts = bake_fonts(scale, true);
    }
    const float units = scale.units_per_point();
    forget_figure_placement();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();

    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("PosLab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBringToFrontOnFocus);
    const bool narrow = io.DisplaySize.x < kNarrowWindow * units;
    const float bar_height = ImGui::GetFrameHeightWithSpacing();
    ControlsActions actions;
    if (!narrow || show_controls) {
      ImGui::BeginChild("controls", ImVec2(narrow ? 0.0f : kControlsWidth * units, -bar_height), true);
      actions = controls.draw(state, workspace);
      ImGui::EndChild();
      if (!narrow) ImGui::SameLine();
    }
    model_view.update(state);
    animation_panel.set_model(model_view.shared_model());
    const ModelRun* model_run = state.view.layer >= 0 && model_view.model() ? model_view.run() : nullptr;
    if (model_run && (model_results_version != model_view.version() || model_results_layer != model_run->request.layer)) {
      const ForwardResult& shown = model_run->shown();
      model_results = layer_results(shown, model_run->request.layer, model_view.model()->config(), model_run->describe());
      model_results_version = model_view.version();
      model_results_layer = model_run->request.layer;
    }
    ImRect view_panel;  // where the view can be seen (screen units), for the layout report
    if (!narrow || !show_controls) {
      // Figures fill this panel; one whose smallest layout is wider still is drawn smaller.
      ImGui::BeginChild("view", ImVec2(0, -bar_height), true, ImGuiWindowFlags_HorizontalScrollbar);
      if (ImGui::BeginTabBar("views")) {
        // The tab asked for in the frame before; drawing a tab may ask for another for the next.
        const std::optional<ExportView> selecting = select_view;
        select_view.reset();
        // One tab per view; --view selects one tab on the first frame, a clicked head the Attention tab.
        auto tab = [&](const char* label, ExportView view, auto&& draw) {
          const bool select = (first_frame && options.initial_view == view) || selecting == view;
          const ImGuiTabItemFlags flags = select ? ImGuiTabItemFlags_SetSelected : 0;
          if (!ImGui::BeginTabItem(label, nullptr, flags)) return;
          active_view = view;
          animation_panel.draw_bar(view, state, workspace, gpu_backend.get(), renderer);  // play and export its parameter
          draw();
          ImGui::EndTabItem();
        };
        tab("Attention", ExportView::Attention, [&] {
          // The heatmap fills what the text under it leaves (measured in the frame before).
          if (info_height < 0.0f) info_height = 7.0f * ImGui::GetTextLineHeightWithSpacing();
          float text_top = 0.0f;
          if (model_run && model_results) {
            // A real model's layer (the Model tab runs it): its own heads, computed on the worker.
            attention_view.draw(state, &*model_results, (1ull << 62) | model_view.version(), nullptr, fonts,
                                info_height);
            text_top = ImGui::GetCursorPosY();
            ImGui::TextWrapped("%s", model_results->description.c_str());
            ImGui::TextDisabled(
                "attention of the model's own forward pass on %s, off the UI thread (%.0f ms); "
                "the Model tab runs it, clear its checkbox for embeddings and random W again",
                model_run->shown().backend.c_str(), model_run->shown().milliseconds);
          } else {
            const bool on_gpu = workspace.backend_choice(state.backend).backend == Backend::Gpu;
            // The GPU paints the cells from its buffers once they hold the shown results (and never
            // waits for a run); a software renderer would paint them slower than the CPU does.
            const bool gpu_paints = on_gpu && !workspace.computing() && !is_software_renderer(renderer);
            attention_view.draw(state, workspace, gpu_paints ? gpu_backend.get() : nullptr, fonts, info_height);
            text_top = ImGui::GetCursorPosY();
            draw_info_panel(state, workspace, renderer + " · " + attention_view.cell_source());
          }
          info_height = ImGui::GetCursorPosY() - text_top;
        });
        tab("Dog", ExportView::Dog, [&] { dog_view.draw(state, workspace, fonts); });
        tab("Patterns", ExportView::Patterns, [&] { patterns_view.draw(state, workspace, fonts); });
        tab("Trajectory", ExportView::Trajectory, [&] { trajectory_view.draw(state, workspace, fonts); });
        tab("Magnitude", ExportView::Magnitude, [&] { magnitude_view.draw(state, workspace, fonts); });
        tab("Shift", ExportView::Shift, [&] { shift_view.draw(state, workspace, fonts); });
        tab("RoPE 2-D", ExportView::Rope2d, [&] { rope2d_view.draw(state, fonts); });
        tab("RoPE image", ExportView::RopeImage, [&] { rope_image_view.draw(state, fonts); });
        tab("Bias", ExportView::Bias, [&] { bias_view.draw(state, workspace, fonts); });
        tab("Frequencies", ExportView::Frequencies, [&] { frequencies_view.draw(state, workspace, fonts); });
        tab("Distance", ExportView::Distance, [&] { distance_view.draw(workspace, fonts); });
        bool play_article = false;  // a tour step's "Play the article's animation" button
        tab("Tour", ExportView::Tour, [&] {
          play_article = animation_panel.draw_tour_button(tour_view.step() + 1, state);
          tour_view.draw(state, workspace, fonts);
        });
        if (play_article) select_view = ExportView::Trajectory;
        tab("Model", ExportView::Heads, [&] {
          bool show_attention = false;
          model_view.draw(state, fonts, show_attention);
          if (show_attention) select_view = ExportView::Attention;
        });
        tab("Train", ExportView::Extrapolation, [&] {
          std::filesystem::path open;
          train_view.draw(fonts, open);
          if (open.empty()) return;
          // As `--model DIR` would, on a sequence of the model's own task; the Model tab shows its heads.
          if (auto next = state_for_trained_model(state, open); !next) {
            status.fail(next.error());
          } else {
            state = *next;
            select_view = ExportView::Heads;
            controls.embeddings_input = open.string();  // its table for the other views, as Load would
            load_requested = true;
            status.info("opened " + open.string() + " on \"" + state.model.sentence + "\", a sequence of its own task");
          }
        });
        ImGui::EndTabBar();
        first_frame = false;
      }
      view_panel = ImGui::GetCurrentWindow()->InnerClipRect;
      ImGui::EndChild();
    }

    // The bottom bar: in a narrow window the switch between controls and views; the status line;
    // at the right end the UI scale menu.
    const float bar_y = ImGui::GetCursorPosY();
    if (narrow) {
      if (ImGui::Button(show_controls ? "Views ▸" : "◂ Controls")) show_controls = !show_controls;
      ImGui::SameLine();
    }
    const float menu_width = ImGui::CalcTextSize("UI scale: auto, 100%").x + ImGui::GetFrameHeight() +
                             4.0f * ImGui::GetStyle().FramePadding.x;
    const float menu_x = std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - menu_width);
    if (workspace.computing()) {  // the attention for the newest settings, on its worker thread
      char label[64];
      std::snprintf(label, sizeof label, "computing … %.0f%% (%.1f s)", 100.0 * workspace.progress(),
                    workspace.computing_seconds());
      ImGui::ProgressBar(static_cast<float>(workspace.progress()), ImVec2(160.0f * units, 0.0f), label);
      ImGui::SameLine();
    }
    if (exports.busy()) {
      ImGui::AlignTextToFramePadding();
      ImGui::TextDisabled("exporting …");
      ImGui::SameLine();
    }
    if (!status.text.empty()) {
      // Clipped before the menu: a long message must not run under it.
      const ImVec2 window_pos = ImGui::GetWindowPos();
      ImGui::PushClipRect(
          ImVec2(window_pos.x, window_pos.y),
          ImVec2(window_pos.x + menu_x - ImGui::GetStyle().ItemSpacing.x, window_pos.y + io.DisplaySize.y), true);
      ImGui::AlignTextToFramePadding();
      ImGui::TextColored(status.error ? ImVec4(1, 0.45f, 0.35f, 1) : ImVec4(0.6f, 0.85f, 0.6f, 1), "%s", status.text.c_str());
      ImGui::PopClipRect();
    }
    ImGui::SetCursorPos(ImVec2(menu_x, bar_y));
    if (ui_scale_menu(chosen_scale, scale, menu_width)) {
      settings.ui_scale = chosen_scale;
      if (auto s = save_settings(settings); !s) status.fail("could not save the UI scale: " + s.error());
    }
    ImGui::End();

    // Hotkeys: Ctrl+E exports the PNG (with Shift at 2×), Ctrl+D the CSV.
    ControlsActions requested = actions;
    for (const Hotkey& h : g_hotkeys) {
      if (io.WantTextInput) break;  // Ctrl+E and Ctrl+D mean something else in a text field
      if (h.key == GLFW_KEY_E) requested.export_png_scale = (h.mods & GLFW_MOD_SHIFT) ? 2 : 1;
      if (h.key == GLFW_KEY_D) requested.export_csv = true;
      if (active_view == ExportView::Tour && h.key == GLFW_KEY_RIGHT) tour_view.next(state);
      if (active_view == ExportView::Tour && h.key == GLFW_KEY_LEFT) tour_view.previous(state);
    }
    g_hotkeys.clear();

    // Act on the frame's requests, then recompute if a pipeline input changed.
    if (actions.load_embeddings || load_requested) {
      loader.start(controls.embeddings_input, state.vocab_path, state.tensor_name);
      status.info("loading " + controls.embeddings_input + " …");
    }
    if (actions.cancel_load) loader.cancel();
    if (auto finished = loader.take()) {
      if (!*finished) {
        status.fail(finished->error() + " — keeping " + workspace.embeddings_path());
      } else {
        workspace.set_embeddings(std::move(**finished), loader.path());
        controls.embeddings_input = loader.path();
        state.embeddings_path = loader.path();
        controls.recent.add(loader.path());
        status.info("loaded " + loader.path());
        // A model folder brings its RoPE settings and heads along, as --model does.
        std::error_code ec;
        const auto folder = resolve_model_folder(controls.embeddings_input);
        const auto config = folder ? *folder / "config.json" : std::filesystem::path();
        if (folder && std::filesystem::is_directory(*folder, ec) && std::filesystem::exists(config, ec)) {
          if (auto applied = load_model_config(state.model, config); !applied) {
            status.fail(applied.error());
          } else {
            state.model.rope_style = RopeStyle::Half;  // Hugging Face checkpoints pair by rotate-half
            status.info("loaded " + controls.embeddings_input + " with its config.json");
          }
        }
      }
    }
    // Which path computes, said on stderr whenever it changes (the info panel says it too).
    if (const BackendChoice choice = workspace.backend_choice(state.backend); choice.reason != backend_said) {
      backend_said = choice.reason;
      std::fprintf(stderr, "poslab: attention: %s\n", backend_said.c_str());
    }
    // Off the UI thread: the window keeps drawing, and the views show the previous results until then.
    if (auto s = workspace.update_async(state); !s) {
      if (status.text != s.error()) status.fail(s.error());
    }
    if (actions.save_session) {
      if (auto s = write_file_atomic(controls.session_path, session_json(state)); !s) status.fail(s.error());
      else status.info("saved the session to " + controls.session_path);
    }
    if (actions.open_session) {
      if (auto loaded = load_session(controls.session_path); !loaded) {
        status.fail(loaded.error() + " — keeping the current state");
      } else {
        state = loaded->state;
        const std::string embeddings = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
        if (embeddings != workspace.embeddings_path()) {
          controls.embeddings_input = embeddings;
          if (auto s = workspace.load_embeddings(embeddings, state.vocab_path, state.tensor_name); !s) status.fail(s.error());
        }
        std::string note = "opened " + controls.session_path;
        for (const auto& key : loaded->unknown_keys) note += " (ignored unknown key " + key + ")";
        status.info(note);
      }
    }
    if (workspace.results() && requested.export_all)  // on the export queue too, one PNG drawn a frame
      exports.start_all(state, workspace.results_shared(), workspace.embeddings_shared(), controls.export_folder,
                        static_cast<float>(controls.export_all_scale));
    if (workspace.results() && (requested.export_png_scale > 0 || requested.export_csv || requested.export_svg)) {
      ExportRequest request;
      std::string stem = controls.export_stem + "-" + std::string(to_string(active_view));
      if (active_view == ExportView::Tour) stem += "-" + std::to_string(tour_view.step() + 1);
      if (requested.export_png_scale > 0) request.png = stem + ".png";
      if (requested.export_csv) request.csv = stem + ".csv";
      if (requested.export_svg) request.svg = stem + ".svg";
      request.scale = static_cast<float>(std::max(1, requested.export_png_scale));
      request.tour_step = tour_view.step();
      request.language = tour_view.language;
      std::vector<std::string> written;
      Status s = Ok{};
      const ModelRun* run = model_view.run();
      if (active_view == ExportView::Extrapolation) {
        // The Train tab's extrapolation plot and table, as `poslab export extrapolation` writes them.
        const plot::Figure figure = train_view.export_figure();
        const std::string text = train_view.export_csv();
        s = write_export(&figure, &text, request, written);
      } else if (run && model_view.model() && (active_view == ExportView::Heads || (active_view == ExportView::Attention && model_run))) {
        // The model's views, as `poslab export heads|attention --model DIR --layer L` writes them.
        const TransformerConfig& c = model_view.model()->config();
        const plot::Figure figure = active_view == ExportView::Heads ? heads_figure(*run, c, kHeadThumbSide).figure
                                                                     : model_attention_figure(state, *run, c, kExportSide);
        std::ostringstream csv;
        if (active_view == ExportView::Heads) csv << heads_csv(*run);
        else write_attention_csv(csv, layer_results(run->shown(), run->request.layer, c, ""));
        const std::string text = csv.str();
        s = write_export(&figure, &text, request, written);
      } else {
        // A view of the embeddings: made and written on the export queue's thread.
        exports.start(active_view, state, workspace.results_shared(), workspace.embeddings_shared(), request);
      }
      if (!s) status.fail(s.error());
      else for (const auto& w : written) status.info("wrote " + w);
    }
    exports.pump(report_export);

    ImGui::Render();
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    // A scripted screenshot shows the state after any load: frames are counted once it is done.
    // The shown view's figure, built off the UI thread, counts as part of that state.
    view_busy = (active_view == ExportView::Bias && bias_view.busy()) ||
                (active_view == ExportView::Patterns && patterns_view.busy()) ||
                (active_view == ExportView::Trajectory && trajectory_view.busy()) ||
                (active_view == ExportView::Magnitude && magnitude_view.busy()) ||
                (active_view == ExportView::Frequencies && frequencies_view.busy()) ||
                (active_view == ExportView::Distance && distance_view.busy()) ||
                (active_view == ExportView::Shift && shift_view.busy()) ||
                (active_view == ExportView::Rope2d && rope2d_view.busy()) ||
                (active_view == ExportView::RopeImage && rope_image_view.busy()) ||
                (active_view == ExportView::Tour && tour_view.busy());
    if (!options.screenshot.empty() && !loader.running() && !model_view.running() && !workspace.computing() &&
        !dog_view.busy() && !view_busy && ++frame >= options.frames) {
      const plot::RgbaImage shot{fb_w, fb_h, gpu::read_window_rgba(fb_w, fb_h)};
      if (auto s = write_file_atomic(options.screenshot, plot::encode_png(shot)); !s) {
        status.fail(s.error());
        exit_code = 1;
      } else {
        std::printf("wrote %s (%d×%d PNG)\n", options.screenshot.c_str(), fb_w, fb_h);
        print_layout(to_string(active_view), scale, view_panel, last_figure_placement());
      }
      glfwSetWindowShouldClose(window, GLFW_TRUE);
    }
    glfwSwapBuffers(window);
  }

  if (options.remember_session) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(last_session_path()).parent_path(), ec);
    if (auto s = write_file_atomic(last_session_path(), session_json(state)); !s)
      std::fprintf(stderr, "poslab: could not remember the session: %s\n", s.error().c_str());
  }
  if (!options.frame_log.empty())
    if (auto s = write_file_atomic(options.frame_log, frame_log); !s) std::fprintf(stderr, "poslab: %s\n", s.error().c_str());
  exports.finish(report_export);  // every export asked for is written before the window goes
  workspace.stop();  // its runs call the GPU thread
  gpu_backend.reset();
  if (gpu_window) glfwDestroyWindow(gpu_window);
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

}  // namespace poslab

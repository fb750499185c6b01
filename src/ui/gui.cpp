#include "ui/gui.hpp"

#include <glad/gl.h>
// glad first: GLFW must not pull in another GL header.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include "core/formats/model_config.hpp"
#include <optional>
#include <sstream>

#include "core/export_data.hpp"
#include "core/formats/formats.hpp"
#include "core/session.hpp"
#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "plot/draw.hpp"
#include "plot/render.hpp"
#include "ui/assets.hpp"
#include "ui/attention_view.hpp"
#include "ui/model_view.hpp"
#include "ui/controls_panel.hpp"
#include "ui/export.hpp"
#include "ui/bias_view.hpp"
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

GLFWwindow* open_window(const GuiOptions& options, bool& gl43) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(options.width, options.height, "PosLab", nullptr, nullptr);
  gl43 = window != nullptr;
  if (!window) {  // no compute shaders then, but the app still runs on the CPU path
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    window = glfwCreateWindow(options.width, options.height, "PosLab", nullptr, nullptr);
  }
  return window;
}

void apply_style() {
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.ItemSpacing = ImVec2(8, 5);
}

}  // namespace

std::string last_session_path() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path base = xdg && *xdg ? std::filesystem::path(xdg)
                                     : home && *home ? std::filesystem::path(home) / ".config"
                                                     : std::filesystem::temp_directory_path();
  return (base / "poslab" / "last-session.json").string();
}

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
  const plot::FontSet fonts = plot::FontSet::add_to(*io.Fonts, 1.0f);
  io.FontDefault = fonts.ui;
  apply_style();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  StatusLine status;
  if (!fonts.warning.empty()) status.fail(fonts.warning);
  const std::string renderer = gpu::describe_context();

  // The GPU path, or why there is none.
  // The GPU path, or why there is none: the info panel shows the driver's full log.
  std::unique_ptr<gpu::GpuBackend> gpu_backend;
  std::string gpu_unavailable;
  if (auto created = gpu::GpuBackend::create()) gpu_backend = std::move(*created);
  else gpu_unavailable = created.error();
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
  workspace.set_gpu_backend(gpu_backend.get(), gpu_unavailable);
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
  BiasView bias_view;
  MagnitudeView magnitude_view;
  PatternsView patterns_view;
  ShiftView shift_view;
  DogView dog_view;
  Rope2dView rope2d_view;
  RopeImageView rope_image_view;
  TrajectoryView trajectory_view;
  TourView tour_view;
  ModelView model_view;
  ExportView active_view = ExportView::Attention;
  std::optional<ExportView> select_view;  // a tab to bring to the front on the next frame
  // A real model's layer as the attention view's results, rebuilt when its run or layer changes.
  std::optional<Results> model_results;
  std::uint64_t model_results_version = ~0ull;
  int model_results_layer = -1;

  int frame = 0;
  bool first_frame = true;  // the tab of --view is selected once, then the user's clicks rule
  int exit_code = 0;
  // --frame-log: each frame's duration, whether a load was running, and the table's size, to
  // show that the window keeps drawing while a large file loads.
  std::string frame_log = "frame,ms,loading,rows\n";
  auto last_frame = std::chrono::steady_clock::now();
  while (!glfwWindowShouldClose(window)) {
    if (!options.frame_log.empty()) {
      const auto now = std::chrono::steady_clock::now();
      char line[96];
      std::snprintf(line, sizeof line, "%d,%.2f,%d,%d\n", frame, std::chrono::duration<double, std::milli>(now - last_frame).count(),
                    loader.running() ? 1 : 0, workspace.embeddings().size());
      frame_log += line;
      last_frame = now;
    }
    glfwPollEvents();
    for (const auto& path : g_dropped) controls.embeddings_input = path;
    bool load_requested = !g_dropped.empty();
    g_dropped.clear();

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();

    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("PosLab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBringToFrontOnFocus);
    ImGui::BeginChild("controls", ImVec2(390, -ImGui::GetFrameHeightWithSpacing()), true);
    const ControlsActions actions = controls.draw(state, workspace);
    ImGui::EndChild();
    ImGui::SameLine();
    // A figure wider than the window (three panels on a small screen) scrolls instead of being cut.
    ImGui::BeginChild("view", ImVec2(0, -ImGui::GetFrameHeightWithSpacing()), true, ImGuiWindowFlags_HorizontalScrollbar);
    model_view.update(state);
    const ModelRun* model_run = state.view.layer >= 0 && model_view.model() ? model_view.run() : nullptr;
    if (model_run && (model_results_version != model_view.version() || model_results_layer != model_run->request.layer)) {
      const ForwardResult& shown = model_run->shown();
      model_results = layer_results(shown, model_run->request.layer, model_view.model()->config(), model_run->describe());
      model_results_version = model_view.version();
      model_results_layer = model_run->request.layer;
    }
    if (ImGui::BeginTabBar("views")) {
      // One tab per view; --view selects one tab on the first frame, a clicked head the Attention tab.
      auto tab = [&](const char* label, ExportView view, auto&& draw) {
        const bool select = (first_frame && options.initial_view == view) || select_view == view;
        const ImGuiTabItemFlags flags = select ? ImGuiTabItemFlags_SetSelected : 0;
        if (!ImGui::BeginTabItem(label, nullptr, flags)) return;
        active_view = view;
        draw();
        ImGui::EndTabItem();
      };
      tab("Attention", ExportView::Attention, [&] {
        const float info_height = 7.0f * ImGui::GetTextLineHeightWithSpacing();
        if (model_run && model_results) {
          // A real model's layer (the Model tab runs it): its own heads, computed on the worker.
          attention_view.draw(state, &*model_results, (1ull << 62) | model_view.version(), nullptr, fonts, info_height);
          ImGui::TextWrapped("%s", model_results->description.c_str());
          ImGui::TextDisabled("attention of the model's own forward pass on %s, off the UI thread (%.0f ms); "
                              "the Model tab runs it, clear its checkbox for embeddings and random W again",
                              model_run->shown().backend.c_str(), model_run->shown().milliseconds);
        } else {
          attention_view.draw(state, workspace, state.backend == Backend::Gpu ? gpu_backend.get() : nullptr, fonts,
                              info_height);
          draw_info_panel(state, workspace, renderer + " · " + attention_view.cell_source());
        }
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
      tab("Tour", ExportView::Tour, [&] { tour_view.draw(state, workspace, fonts); });
      select_view.reset();
      tab("Model", ExportView::Heads, [&] {
        bool show_attention = false;
        model_view.draw(state, fonts, show_attention);
        if (show_attention) select_view = ExportView::Attention;
      });
      ImGui::EndTabBar();
      first_frame = false;
    }
    ImGui::EndChild();
    if (!status.text.empty())
      ImGui::TextColored(status.error ? ImVec4(1, 0.45f, 0.35f, 1) : ImVec4(0.6f, 0.85f, 0.6f, 1), "%s", status.text.c_str());
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
    if (auto s = workspace.update(state); !s) {
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
    if (workspace.results() && requested.export_all) {
      std::vector<std::string> written;
      if (auto s = export_all_views(state, *workspace.results(), workspace.embeddings(), controls.export_folder,
                                    static_cast<float>(controls.export_all_scale), written);
          !s)
        status.fail(s.error());
      else
        status.info("wrote " + std::to_string(written.size()) + " files into " + controls.export_folder);
    }
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
      if (run && model_view.model() && (active_view == ExportView::Heads || (active_view == ExportView::Attention && model_run))) {
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
        s = export_view(active_view, state, *workspace.results(), workspace.embeddings(), request, written);
      }
      if (!s) status.fail(s.error());
      else for (const auto& w : written) status.info("wrote " + w);
    }

    ImGui::Render();
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    // A scripted screenshot shows the state after any load: frames are counted once it is done.
    if (!options.screenshot.empty() && !loader.running() && !model_view.running() && ++frame >= options.frames) {
      const plot::RgbaImage shot{fb_w, fb_h, gpu::read_window_rgba(fb_w, fb_h)};
      if (auto s = write_file_atomic(options.screenshot, plot::encode_png(shot)); !s) {
        status.fail(s.error());
        exit_code = 1;
      } else {
        std::printf("wrote %s (%d×%d PNG)\n", options.screenshot.c_str(), fb_w, fb_h);
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
  gpu_backend.reset();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

}  // namespace poslab

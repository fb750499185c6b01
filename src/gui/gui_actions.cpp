// What the frame's requests do: loads, model configs, sessions, exports, the probe, the frame's
// rendering and screenshot, and shutting down.
#include "gui/gui_app.hpp"

#include <glad/gl.h>
// glad first: GLFW must not pull in another GL header.
#include <GLFW/glfw3.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/formats/formats.hpp"
#include "base/files.hpp"
#include "core/model/model_config.hpp"
#include "core/model/model_run.hpp"
#include "core/model/transformer_config.hpp"
#include "core/session.hpp"
#include "figures/assets.hpp"
#include "figures/export.hpp"
#include "figures/html_page.hpp"
#include "gpu/attention_gpu.hpp"
#include "gui/flow.hpp"
#include "gui/gui.hpp"
#include "gui/probe.hpp"
#include "plot/render.hpp"

namespace poslab {

// "wrote F …", and whether F replaced a file of that name (exports do not ask; they say so).
// `written` is the export's line: the path, and for a PNG its size in parentheses.
// Asked once per export, so that a path whose earlier export failed is not said to replace a file
// that is no longer there.
void Gui::note_if_replacing(const std::string& path) {
  std::error_code ec;
  if (path.empty()) return;
  if (std::filesystem::exists(path, ec)) replacing_.insert(path);
  else replacing_.erase(path);
}

std::string Gui::wrote(const std::vector<std::string>& written) {
  std::string line = "wrote ";
  for (std::size_t k = 0; k < written.size(); ++k) {
    line += (k == 0 ? "" : "; ") + written[k];
    for (auto it = replacing_.begin(); it != replacing_.end(); ++it) {
      if (written[k] != *it && !written[k].starts_with(*it + " (")) continue;
      replacing_.erase(it);
      line += ", replacing the file of that name";
      break;
    }
  }
  return line;
}

void Gui::finish_load() {
  auto finished = loader_.take();
  if (!finished) return;
  const bool run_model = std::exchange(run_model_on_load_, false);
  if (!*finished) {
    status_.fail(finished->error() + " — keeping " + workspace_.embeddings_path());
    if (run_model) views_.model.say_load_error(status_.text);  // asked for in the Model tab: said there too
    return;
  }
  workspace_.set_embeddings(std::move(**finished), loader_.path());
  controls_.embeddings_input = loader_.path();
  state_.embeddings_path = loader_.path();
  controls_.recent.add(loader_.path());
  status_.info("loaded " + loader_.path());
  apply_model_config();
  if (run_model) views_.model.say_load_error(status_.error ? status_.text : "");
  std::error_code ec;
  if (run_model && std::filesystem::is_directory(loader_.path(), ec)) state_.view.layer = std::max(0, state_.view.layer);
}

// A model folder brings its heads and RoPE settings to the explorer, as --model does, but never
// its encoding or bias: the explorer keeps its own (an ALiBi model's bias is the model's, which
// the Model tab runs with settings of its own, gui/views/model_view.hpp).
void Gui::apply_model_config() {
  std::error_code ec;
  const auto folder = resolve_model_folder(controls_.embeddings_input);
  const auto config = folder ? *folder / "config.json" : std::filesystem::path();
  if (!folder || !std::filesystem::is_directory(*folder, ec) || !std::filesystem::exists(config, ec)) return;
  if (auto applied = load_checkpoint_config(state_.model, config, ModelPositions::Keep); !applied)
    return status_.fail(applied.error());
  status_.info("loaded " + controls_.embeddings_input + " with its config.json");
}

void Gui::save_session() {
  if (auto s = write_file_atomic(controls_.session_path, session_json(state_, controls_.session_path)); !s) status_.fail(s.error());
  else status_.info("saved the session to " + controls_.session_path);
}

void Gui::open_session() {
  auto loaded = load_session(controls_.session_path);
  if (!loaded) return status_.fail(loaded.error() + " — keeping the current state");
  state_ = loaded->state;
  const std::string embeddings =
      state_.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state_.embeddings_path;
  if (embeddings != workspace_.embeddings_path()) {
    controls_.embeddings_input = embeddings;
    if (auto s = workspace_.load_embeddings(embeddings, state_.vocab_path, state_.tensor_name); !s)
      status_.fail(s.error());
  }
  std::string note = "opened " + controls_.session_path;
  for (const auto& key : loaded->unknown_keys) note += " (ignored unknown key " + key + ")";
  status_.info(note);
}

// Exports of the shown tab: its files are named after the view they hold (the Model tab's heads,
// the Train tab's extrapolation plot), as `poslab export VIEW` names it.
void Gui::start_exports(const ControlsActions& requested) {
  if (!workspace_.results()) return;
  if (requested.export_all)  // on the export queue too, one PNG drawn a frame
    exports_.start_all(state_, workspace_.results_shared(), workspace_.embeddings_shared(), controls_.export_folder,
                       static_cast<float>(controls_.export_all_scale), shown_model_views());
  if (requested.export_png_scale <= 0 && !requested.export_csv && !requested.export_svg && !requested.export_html) return;
  const ViewId exported = active_view_ == ViewId::Model   ? ViewId::Heads
                          : active_view_ == ViewId::Train ? ViewId::Extrapolation
                                                          : active_view_;
  ExportRequest request;
  std::string stem = controls_.export_stem + "-" + std::string(to_string(exported));
  if (active_view_ == ViewId::Tour) stem += "-" + std::to_string(views_.tour.step() + 1);
  if (requested.export_png_scale > 0) request.png = stem + ".png";
  if (requested.export_csv) request.csv = stem + ".csv";
  if (requested.export_svg) request.svg = stem + ".svg";
  if (requested.export_html) request.html = stem + ".html";
  request.scale = static_cast<float>(std::max(1, requested.export_png_scale));
  for (const std::string* path : {&request.png, &request.csv, &request.svg, &request.html}) note_if_replacing(*path);
  if (!request.html.empty() && exported != ViewId::Attention && exported != ViewId::Heads)
    return status_.fail("HTML: an interactive page is made of the Attention tab or the Model tab's heads, not of " + std::string(to_string(exported)));
  request.tour_step = views_.tour.step();
  request.language = views_.tour.language;
  std::vector<std::string> written;
  Status s = Ok{};
  const ModelRun* run = views_.model.run();
  if (active_view_ == ViewId::Train) {
    // The Train tab's extrapolation plot and table, as `poslab export extrapolation` writes them.
    const plot::Figure figure = views_.train.export_figure();
    const std::string text = views_.train.export_csv();
    s = write_export(&figure, &text, request, written);
  } else if (run && views_.model.model() &&
             (active_view_ == ViewId::Model || (active_view_ == ViewId::Attention && model_run_))) {
    // The model's views, as `poslab export heads|attention --model DIR --layer L` writes them.
    const TransformerConfig& c = views_.model.model()->config();
    const State& settings = views_.model.settings();  // the model runs its own
    const auto output = model_view_output(exported, settings, *run, c);
    Result<std::string> page = std::string();
    if (!request.html.empty())
      page = exported == ViewId::Heads ? heads_page(*run, c) : attention_page(settings, layer_results(run->shown(), run->request.layer, c, run->describe()));
    ExportRequest files = request;
    files.html.clear();
    s = !output ? Status(Error{output.error()}) : !page ? Status(Error{page.error()}) : write_export(&output->figure, &output->csv, files, written);
    if (s && !request.html.empty()) {
      s = write_file_atomic(request.html, *page);
      if (s) written.push_back(request.html + " (HTML)");
    }
  } else {
    // A view of the embeddings: made and written on the export queue's thread.
    exports_.start(active_view_, state_, workspace_.results_shared(), workspace_.embeddings_shared(), request);
  }
  if (!s) status_.fail(nothing_written(request) + s.error());
  else if (!written.empty()) status_.info(wrote(written));
}

// The views of the open model that Export all views writes as the window shows them: the
// Attention tab's layer when it shows the model's (instead of the explorer's random weights), and
// the Model tab's views (heads; frequency usage where the model has RoPE). Drawn here, where the
// run lives; written with the others on the export queue.
std::vector<ShownModelView> Gui::shown_model_views() const {
  std::vector<ShownModelView> shown;
  const ModelRun* run = views_.model.run();
  if (!run || !views_.model.model()) return shown;
  const TransformerConfig& c = views_.model.model()->config();
  const State& settings = views_.model.settings();  // the model runs its own
  for (const ViewInfo& v : view_registry()) {
    const bool of_model = v.needs == ViewNeeds::Model || (v.id == ViewId::Attention && model_run_);
    if (!v.in_all_views || !of_model || !v.model_output || !v.forward_pass) continue;
    State checked = settings;
    if (!check_model_view(v.id, checked, c)) continue;  // frequency usage of a model without RoPE
    if (auto out = model_view_output(v.id, settings, *run, c)) shown.push_back({v.id, std::move(*out)});
  }
  return shown;
}

// The Model tab's positions across training, when its Export button was pressed: the PNG and
// the CSV `poslab export training` writes, named after the Export section's file stem.
void Gui::export_training() {
  TrainingPanel& training = views_.model.training();
  if (!training.take_export_request()) return;
  ExportRequest request;
  const std::string stem = controls_.export_stem + "-training";
  request.png = stem + ".png";
  request.csv = stem + ".csv";
  for (const std::string* path : {&request.png, &request.csv}) note_if_replacing(*path);
  std::vector<std::string> written;
  const std::string csv = training.export_csv();
  const Status s = write_export(&training.export_figure(), &csv, request, written);
  if (!s) status_.fail(nothing_written(request) + s.error());
  else status_.info(wrote(written));
}

// When the newest settings computed nothing (over the memory budget, say), the tab still shows
// the results from before: said above the view, whole and wrapped (the status line may cut it),
// so that the reader knows the figure is not of the settings in the panel, and why. Not on the
// tabs that show a model of their own.
void Gui::draw_kept_results_note(ViewId view) {
  const std::string& why = workspace_.failure();
  const bool own_model = view == ViewId::Model || view == ViewId::Train || (view == ViewId::Attention && model_run_);
  const bool shown = !why.empty() && workspace_.results() && !workspace_.computing() && !own_model;
  probe::value("kept results", shown ? why : "");
  if (!shown) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.35f, 1));
  flow::text_wrapped(("Still showing the results from before: " + why).c_str());
  ImGui::PopStyleColor();
}

// What a scripted test reads (--probe): the tab, the status line, the tokens, the state.
void Gui::publish_probe() {
  if (!probe::enabled()) return;
  if (const Results* r = workspace_.results()) {
    const int heads = r->problem.heads;
    probe::value("results", std::to_string(r->tokens.size()) + " tokens · " + std::to_string(heads) +
                                (heads == 1 ? " head" : " heads"));
  }
  probe::value("tab", to_string(active_view_));
  probe::value("status", status_.text);
  probe::value("status kind", status_.text.empty() ? "none" : status_.error ? "error" : "info");
  probe::value("computing", workspace_.computing() ? "yes" : "no");
  probe::value("drawing", view_busy_ ? "yes" : "no");  // the shown view's figure is being built
  probe::value("busy", loader_.running() || views_.model.running() || workspace_.computing() || results_arrived_ ||
                           views_.dog.busy() || view_busy_ || exports_.busy()
                       ? "yes"
                       : "no");
  probe::value("state", session_json(state_));
  probe::end_frame();
}

void Gui::render_and_screenshot() {
  ImGui::Render();
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window_, &fb_w, &fb_h);
  glViewport(0, 0, fb_w, fb_h);
  glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

  // The window as the reader sees it, for slides: read here, encoded and written off this thread.
  if (std::exchange(window_shot_requested_, false)) {
    const std::string path = controls_.export_stem + "-window.png";
    note_if_replacing(path);
    exports_.save_png(plot::RgbaImage{fb_w, fb_h, gpu::read_window_rgba(fb_w, fb_h)}, path);
  }
  // A scripted screenshot shows the state after any load: frames are counted once it is done.
  // The shown view's figure, built off the UI thread, counts as part of that state (view_busy_).
  if (!options_.screenshot.empty() && !loader_.running() && !views_.model.running() && !workspace_.computing() &&
      !results_arrived_ && !views_.dog.busy() && !view_busy_ && ++frame_ >= options_.frames) {
    const plot::RgbaImage shot{fb_w, fb_h, gpu::read_window_rgba(fb_w, fb_h)};
    if (auto s = write_file_atomic(options_.screenshot, plot::encode_png(shot)); !s) {
      status_.fail(s.error());
      exit_code_ = 1;
    } else {
      std::printf("wrote %s (%d×%d PNG)\n", options_.screenshot.c_str(), fb_w, fb_h);
      print_layout(to_string(active_view_), scale_, view_panel_, last_figure_placement());
    }
    glfwSetWindowShouldClose(window_, GLFW_TRUE);
  }
  glfwSwapBuffers(window_);
}

void Gui::shut_down() {
  if (options_.remember_session) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(last_session_path()).parent_path(), ec);
    if (auto s = write_file_atomic(last_session_path(), session_json(state_, last_session_path())); !s)
      std::fprintf(stderr, "poslab: could not remember the session: %s\n", s.error().c_str());
  }
  if (!options_.frame_log.empty())
    if (auto s = write_file_atomic(options_.frame_log, frame_log_); !s)
      std::fprintf(stderr, "poslab: %s\n", s.error().c_str());
  exports_.finish(report_export_);  // every export asked for is written before the window goes
  workspace_.stop();  // its runs call the GPU thread
  gpu_backend_.reset();
  if (gpu_window_) glfwDestroyWindow(gpu_window_);
  gpu_window_ = nullptr;
}

}  // namespace poslab

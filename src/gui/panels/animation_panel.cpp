#include "gui/panels/animation_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/tour/tour.hpp"
#include "gui/probe.hpp"

namespace poslab {

// ---- The export: frames on the UI thread, encoding on a worker -----------------------------------

namespace {
constexpr std::size_t kQueuedFrames = 3;  // the renderer runs at most this far ahead of the encoder
}

AnimationExport::AnimationExport(AnimationSource source, std::unique_ptr<Workspace> workspace, State start, Sweep sweep,
                                 float scale, std::unique_ptr<plot::FrameSink> sink)
    : source_(std::move(source)),
      workspace_(std::move(workspace)),
      start_(std::move(start)),
      sweep_(sweep),
      scale_(scale),
      sink_(std::move(sink)) {
  source_.workspace = workspace_.get();
  from_model_ = view_needs_model(source_.view, start_);
  if (from_model_) {
    figures_.resize(static_cast<std::size_t>(sweep_.frames));
    figure_worker_ = std::thread([this] { figure_loop(); });
  }
  worker_ = std::thread([this] { encode_loop(); });
}

AnimationExport::~AnimationExport() {
  cancel();
  if (figure_worker_.joinable()) figure_worker_.join();
  if (worker_.joinable()) worker_.join();
}

void AnimationExport::figure_loop() {
  for (int k = 0; k < sweep_.frames && !cancel_; ++k) {
    auto figure = animation_frame_figure(source_, start_, sweep_, k);
    const bool failed = !figure;
    std::lock_guard lock(mutex_);
    figures_[static_cast<std::size_t>(k)] = std::move(figure);
    if (failed) return;
  }
}

std::optional<Result<plot::Figure>> AnimationExport::frame_figure(int k, bool take) {
  if (!from_model_) return animation_frame_figure(source_, start_, sweep_, k);
  std::lock_guard lock(mutex_);
  auto& slot = figures_[static_cast<std::size_t>(k)];
  if (!slot) return std::nullopt;
  if (!take) return *slot;
  std::optional<Result<plot::Figure>> out = std::move(slot);
  slot.reset();
  return out;
}

void AnimationExport::cancel() {
  cancel_ = true;
  std::lock_guard lock(mutex_);
  closed_ = true;
  ready_.notify_all();
}

double AnimationExport::progress() const {
  return 0.1 * measured_ / sweep_.frames + 0.9 * static_cast<double>(encoded_) / sweep_.frames;
}

std::string AnimationExport::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void AnimationExport::pump() {
  if (done_ || cancel_) return;
  if (measured_ < sweep_.frames) {
    // The canvas: every figure's size, a few milliseconds' worth per window frame.
    const auto start = std::chrono::steady_clock::now();
    while (measured_ < sweep_.frames && std::chrono::steady_clock::now() - start < std::chrono::milliseconds(12)) {
      auto made = frame_figure(measured_, false);
      if (!made) return;  // a model's frame still being computed
      auto& figure = *made;
      if (!figure) {
        std::lock_guard lock(mutex_);
        error_ = figure.error();
        closed_ = true;
        cancel_ = true;
        ready_.notify_all();
        return;
      }
      const auto [w, h] = frame_size(*figure, scale_);
      canvas_width_ = std::max(canvas_width_, w);
      canvas_height_ = std::max(canvas_height_, h);
      ++measured_;
    }
    if (measured_ == sweep_.frames) sink_->set_canvas(canvas_width_, canvas_height_);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    if (closed_ || queue_.size() >= kQueuedFrames) return;
  }
  if (!renderer_) {
    auto made = plot::FigureRenderer::create(scale_);
    if (!made) {
      std::lock_guard lock(mutex_);
      error_ = made.error();
      closed_ = true;
      cancel_ = true;
      ready_.notify_all();
      return;
    }
    renderer_ = std::move(*made);
  }
  auto made = frame_figure(rendered_, true);
  if (!made) return;
  Result<plot::RgbaImage> image = *made ? renderer_->render(**made) : Result<plot::RgbaImage>(Error{made->error()});
  std::lock_guard lock(mutex_);
  if (!image) {
    error_ = image.error();
    closed_ = true;
    cancel_ = true;  // the worker drops the partial file
  } else {
    queue_.push_back(std::move(*image));
    closed_ = ++rendered_ == sweep_.frames;
  }
  ready_.notify_all();
}

void AnimationExport::encode_loop() {
  for (;;) {
    plot::RgbaImage frame;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
      if (cancel_) break;
      if (queue_.empty()) break;  // closed and all encoded
      frame = std::move(queue_.front());
      queue_.pop_front();
    }
    if (auto s = sink_->add(frame); !s) {
      std::lock_guard lock(mutex_);
      error_ = s.error();
      cancel_ = true;
      break;
    }
    ++encoded_;
  }
  if (!cancel_) {
    if (auto s = sink_->finish(); !s) {
      std::lock_guard lock(mutex_);
      error_ = s.error();
    }
  } else {
    std::lock_guard lock(mutex_);
    if (error_.empty()) error_ = "cancelled";
  }
  sink_.reset();  // without finish(): removes what it wrote
  done_ = true;
}

// ---- The play bar -------------------------------------------------------------------------------

void AnimationPanel::start_sweep(ViewId view, const ViewSweep& natural, State& state) {
  stop(state);
  from_ = natural.from;
  to_ = natural.to;
  if (natural.param == "head") {
    range_heads_ = head_count(view, state);
    to_ = std::max(0, range_heads_ - 1);
  }
  const auto p = find_sweep_param(natural.param);
  frames_ = p && p->integer ? static_cast<int>(std::abs(to_ - from_)) + 1 : 60;
  frames_ = std::clamp(frames_, 2, 600);
  view_ = view;
  frame_ = 0;
  active_ = playing_ = false;
  article_ = nullptr;
}

int AnimationPanel::head_count(ViewId view, const State& state) const {
  if (model_ && view_needs_model(view, state)) return model_->config().heads;
  return state.model.heads;
}

// The whole state comes back when nothing else changed it meanwhile; else the parameter alone,
// when it still holds the frame's value (a value the reader set since is theirs to keep).
void AnimationPanel::stop(State& state) {
  playing_ = false;
  article_ = nullptr;
  if (active_ && sweep_ && before_) {
    if (state == set_) state = *before_;
    else if (sweep_->param.read(state) == sweep_value(*sweep_, frame_))
      (void)apply_sweep_value(state, *sweep_, sweep_->param.read(*before_));
  }
  active_ = false;
  before_.reset();
  frame_ = 0;
}

void AnimationPanel::set_frame(int k, State& state) {
  if (!sweep_) return;
  frame_ = std::clamp(k, 0, sweep_->frames - 1);
  if (auto next = sweep_state(state, *sweep_, frame_)) {
    if (!active_) before_ = state;
    state = *next;
    set_ = state;
    active_ = true;
  } else {
    playing_ = false;
    message_ = next.error();
    message_is_error_ = true;
  }
}

bool AnimationPanel::draw_tour_button(int step, State& state, Language language) {
  const ArticleAnimation* a = article_animation_for_step(step);
  if (!a) return false;
  const std::string label = tour_word(language, 11) + ": " + std::string(a->name);
  const bool pressed = ImGui::Button(label.c_str());
  probe::item("tour: play the article's animation");
  if (!pressed) return false;
  stop(state);
  const State before = state;  // the tour step's, given back when the animation stops
  state = article_animation_state(*a, state);
  const auto& sweeps = view_info(*view_named(a->view)).sweeps;
  param_index_ = 0;
  for (std::size_t i = 0; i < sweeps.size(); ++i)
    if (sweeps[i].param == a->param) param_index_ = static_cast<int>(i);
  view_ = *view_named(a->view);
  has_view_ = true;
  from_ = a->from;
  to_ = a->to;
  frames_ = a->frames;
  sweep_ = make_sweep(a->param, from_, to_, frames_).value();
  set_frame(0, state);
  before_ = before;
  waiting_for_view_ = true;
  playing_ = true;
  clock_ = 0.0;
  article_ = a;
  std::fprintf(stderr, "poslab: playing \"%s\" (tour step %d): %s, %s from %s to %s\n", std::string(a->name).c_str(),
               a->tour_step, std::string(a->view).c_str(), std::string(a->param).c_str(),
               sweep_value_text(*sweep_, 0).c_str(), sweep_value_text(*sweep_, sweep_->frames - 1).c_str());
  return true;
}

std::vector<ViewSweep> AnimationPanel::bar_sweeps(ViewId view, State& state) {
  // Another tab: the sweep gives back what it changed. The article's animation starts on the
  // tour's tab, which stays in front until the trajectory's comes (a frame or two).
  if (view == view_) waiting_for_view_ = false;
  else if (has_view_ && !waiting_for_view_) stop(state);
  auto sweeps = view_info(view).sweeps;
  // A layer moves only in a model folder's own forward pass.
  if (state.embeddings_path != layer_checked_path_) {
    std::error_code ec;
    layer_checked_path_ = state.embeddings_path;
    has_layers_ = !state.embeddings_path.empty() && std::filesystem::is_directory(state.embeddings_path, ec);
  }
  if (!has_layers_) std::erase_if(sweeps, [](const ViewSweep& v) { return v.param == "layer"; });
  return sweeps;
}

void AnimationPanel::draw_bar(ViewId view, State& state, const Workspace& workspace, AttentionBackend* gpu,
                              const std::string& renderer) {
  const std::vector<ViewSweep> sweeps = bar_sweeps(view, state);
  if (sweeps.empty()) {  // nothing to play here; an export still runs on
    draw_export_progress();
    return;
  }
  if (!has_view_ || view != view_) {
    param_index_ = 0;
    start_sweep(view, sweeps[0], state);
    has_view_ = true;
  }
  param_index_ = std::clamp(param_index_, 0, static_cast<int>(sweeps.size()) - 1);
  // The head range follows the head count (another model, another --heads) unless it is playing.
  if (sweeps[static_cast<std::size_t>(param_index_)].param == "head" && !playing_ && !export_ &&
      head_count(view, state) != range_heads_)
    start_sweep(view, sweeps[static_cast<std::size_t>(param_index_)], state);
  ImGui::PushID("animation");
  const float units = ImGui::GetFontSize() / 13.0f;

  // One row: the parameter and its range, play or pause, the frame (scrub), speed, loop, export.
  ImGui::SetNextItemWidth(110.0f * units);
  if (ImGui::BeginCombo("##param", std::string(sweeps[static_cast<std::size_t>(param_index_)].label).c_str())) {
    for (std::size_t i = 0; i < sweeps.size(); ++i)
      if (ImGui::Selectable(std::string(sweeps[i].label).c_str(), static_cast<int>(i) == param_index_)) {
        param_index_ = static_cast<int>(i);
        start_sweep(view, sweeps[i], state);
      }
    ImGui::EndCombo();
  }
  const ViewSweep& natural = sweeps[static_cast<std::size_t>(param_index_)];
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The parameter that moves (poslab export … --animate %s)", std::string(natural.param).c_str());
  ImGui::SameLine();
  char range[96];
  std::snprintf(range, sizeof range, "%g → %g, %d frames###range", from_, to_, frames_);
  if (ImGui::Button(range)) ImGui::OpenPopup("animation range");
  probe::value("play bar range", std::string(range, std::strlen(range) - std::strlen("###range")));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Frame k of N shows from + k·(to − from)/(N − 1)");
  if (ImGui::BeginPopup("animation range")) {
    ImGui::SetNextItemWidth(100.0f * units);
    ImGui::InputDouble("from", &from_, 0.0, 0.0, "%g");
    ImGui::SetNextItemWidth(100.0f * units);
    ImGui::InputDouble("to", &to_, 0.0, 0.0, "%g");
    ImGui::SetNextItemWidth(100.0f * units);
    ImGui::InputInt("frames", &frames_, 1, 10);
    ImGui::EndPopup();
  }
  frames_ = std::clamp(frames_, 2, kMaxSweepFrames);
  auto made = make_sweep(natural.param, from_, to_, frames_);
  if (made) {
    const bool changed = !sweep_ || sweep_->param.name != made->param.name || sweep_->from != made->from ||
                         sweep_->to != made->to || sweep_->frames != made->frames;
    sweep_ = *made;
    if (changed && active_) set_frame(frame_, state);
  }
  // The reader set the parameter themselves (or a tour step did): the sweep no longer holds it.
  if (active_ && !playing_ && sweep_ && sweep_->param.read(state) != sweep_value(*sweep_, frame_)) {
    active_ = false;
    before_.reset();
  }
  ImGui::SameLine();
  const bool play_pressed = ImGui::Button(playing_ ? "Pause" : "Play", ImVec2(52.0f * units, 0.0f));
  probe::item("play bar: play");
  if (play_pressed && sweep_) {
    playing_ = !playing_;
    clock_ = 0.0;
    if (playing_ && (!active_ || frame_ >= sweep_->frames - 1))
      set_frame(active_ && frame_ < sweep_->frames - 1 ? frame_ : 0, state);
  }
  ImGui::SameLine();
  // Advance while playing, before the slider shows the frame.
  if (playing_ && sweep_) {
    clock_ += ImGui::GetIO().DeltaTime;
    const double period = 1.0 / std::max(1.0f, fps_);
    if (clock_ >= period) {
      clock_ = std::fmod(clock_, period);
      if (frame_ + 1 < sweep_->frames)
        set_frame(frame_ + 1, state);
      else if (loop_)
        set_frame(0, state);
      else
        playing_ = false;
    }
  }
  // The scrub slider takes what the controls on its right leave.
  const ImGuiStyle& style = ImGui::GetStyle();
  const char* export_label = "Export animation…";
  const float right = 70.0f * units + ImGui::GetFrameHeight() + ImGui::CalcTextSize("loop").x +
                      ImGui::CalcTextSize(export_label).x + 2.0f * style.FramePadding.x + 4.0f * style.ItemSpacing.x +
                      style.ItemInnerSpacing.x;
  draw_scrub(natural, state, std::max(100.0f * units, ImGui::GetContentRegionAvail().x - right));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(70.0f * units);
  ImGui::SliderFloat("##fps", &fps_, 1.0f, 60.0f, "%.0f fps");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Playing speed, frames per second");
  ImGui::SameLine();
  ImGui::Checkbox("loop", &loop_);
  ImGui::SameLine();
  if (ImGui::Button(export_label)) {
    // Named after the view and parameter shown now, in the folder and format the reader chose last.
    open_dialog_ = true;
    const char* extensions[] = {".mp4", ".gif", ""};
    const std::filesystem::path folder = std::filesystem::path(path_).parent_path();
    const std::string name = "poslab-" + std::string(to_string(view)) + "-" + std::string(natural.param) +
                             extensions[std::clamp(format_, 0, 2)];
    std::snprintf(path_, sizeof path_, "%s", (folder / name).string().c_str());
    message_.clear();
  }
  probe::item("export animation");

  draw_value_on_view(natural);
  draw_export_progress();
  draw_export_dialog(state, workspace, gpu, renderer);
  ImGui::PopID();
}

void AnimationPanel::draw_scrub(const ViewSweep& natural, State& state, float width) {
  int k = frame_;
  ImGui::SetNextItemWidth(width);
  // The value the state holds, which is what is drawn (a frame's while the sweep holds the state);
  // the frame only while it does.
  const std::string value = sweep_ ? std::string(natural.param) + " = " + sweep_value_text(*sweep_, sweep_->param.read(state)) : "";
  const std::string format =
      active_ ? "frame %d / " + std::to_string(sweep_ ? sweep_->frames - 1 : 0) + " · " + value : value;
  if (ImGui::SliderInt("##frame", &k, 0, sweep_ ? sweep_->frames - 1 : 0, format.c_str())) {
    playing_ = false;
    set_frame(k, state);
  }
  scrubbing_ = ImGui::IsItemActive();
  probe::item("play bar: frame");
  probe::value("play bar", value);
}

// The value at the bottom right of the view's panel while it moves (playing or scrubbing).
void AnimationPanel::draw_value_on_view(const ViewSweep& natural) {
  if (!active_ || !sweep_ || !(playing_ || scrubbing_)) {
    probe::value("value on view", "");
    return;
  }
  std::string shown = article_ ? std::string(article_->name) + " · " : "";
  shown += std::string(natural.param) + " = " + sweep_value_text(*sweep_, frame_);
  probe::value("value on view", shown);
  const float units = ImGui::GetFontSize() / 13.0f;
  const ImVec2 size = ImGui::CalcTextSize(shown.c_str());
  const ImVec2 corner(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                      ImGui::GetWindowPos().y + ImGui::GetWindowSize().y);
  const float pad = 6.0f * units;
  const ImVec2 at(corner.x - size.x - 4.0f * pad, corner.y - size.y - 4.0f * pad);
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  draw->AddRectFilled(ImVec2(at.x - pad, at.y - pad), ImVec2(at.x + size.x + pad, at.y + size.y + pad),
                      IM_COL32(20, 20, 28, 215), 3.0f * units);
  draw->AddText(at, IM_COL32(255, 230, 120, 255), shown.c_str());
}

void AnimationPanel::draw_export_progress() {
  // The export running: progress and Cancel.
  if (export_) {
    export_->pump();
    const float units = ImGui::GetFontSize() / 13.0f;
    char text[64];
    std::snprintf(text, sizeof text, "exporting … %.0f%%", 100.0 * export_->progress());
    ImGui::ProgressBar(static_cast<float>(export_->progress()), ImVec2(200.0f * units, 0.0f), text);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) export_->cancel();
    if (export_->done()) {
      const std::string why = export_->error();
      message_ = why.empty() ? "wrote " + export_path_ : "animation not written: " + why;
      message_is_error_ = !why.empty();
      std::fprintf(stderr, "poslab: %s\n", message_.c_str());
      export_.reset();
    }
  } else if (!message_.empty()) {
    if (message_is_error_) ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "%s", message_.c_str());
    else ImGui::TextColored(ImVec4(0.6f, 0.85f, 0.6f, 1), "%s", message_.c_str());
  }
  probe::value("animation message", message_);
  probe::value("animation message kind", message_.empty() ? "none" : message_is_error_ ? "error" : "info");
}

void AnimationPanel::draw_export_dialog(const State& state, const Workspace& workspace, AttentionBackend* gpu,
                                        const std::string& renderer) {
  if (open_dialog_) {
    ImGui::OpenPopup("Export animation");
    open_dialog_ = false;
  }
  if (!ImGui::BeginPopupModal("Export animation", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  const char* extensions[] = {".mp4", ".gif", ""};
  const int before = format_;
  ImGui::RadioButton("MP4 (H.264)", &format_, 0);
  ImGui::SameLine();
  ImGui::RadioButton("GIF", &format_, 1);
  ImGui::SameLine();
  ImGui::RadioButton("PNG frames (folder)", &format_, 2);
  if (format_ != before) {  // follow the format in the name's extension
    std::string p = path_;
    for (const char* e : extensions)
      if (*e && p.ends_with(e)) p.resize(p.size() - std::strlen(e));
    p += extensions[format_];
    std::snprintf(path_, sizeof path_, "%s", p.c_str());
  }
  ImGui::InputText(format_ == 2 ? "folder" : "file", path_, sizeof path_);
  ImGui::Text("size");
  ImGui::SameLine();
  ImGui::RadioButton("1×", &scale_, 1);
  ImGui::SameLine();
  ImGui::RadioButton("2×", &scale_, 2);
  ImGui::SameLine();
  ImGui::RadioButton("4×", &scale_, 4);
  ImGui::SetNextItemWidth(120.0f);
  ImGui::InputInt("frames", &frames_);
  frames_ = std::clamp(frames_, 2, kMaxSweepFrames);
  ImGui::SetNextItemWidth(120.0f);
  ImGui::InputFloat("frames per second", &export_fps_, 1.0f, 5.0f, "%.3g");
  export_fps_ = std::clamp(export_fps_, 1.0f, 120.0f);
  const bool model_view = view_needs_model(view_, state);
  if (model_view && !model_)
    ImGui::TextWrapped("A model folder's view: open the folder in the Model tab first.");
  else if (model_view)
    ImGui::TextDisabled("each frame runs the model's forward pass on the CPU, on a thread of its own");
  if (sweep_)
    ImGui::Text("%d frames of %s from %s to %s", frames_, std::string(sweep_->param.name).c_str(),
                sweep_value_text(*sweep_, 0).c_str(), sweep_value_text(*sweep_, sweep_->frames - 1).c_str());
  const bool can_start = sweep_ && !export_ && (!model_view || model_) && workspace.has_embeddings();
  if (!can_start) ImGui::BeginDisabled();
  const bool export_pressed = ImGui::Button("Export");
  probe::item("export animation: export");
  if (export_pressed) {
    auto sweep = make_sweep(sweep_->param.name, from_, to_, frames_);
    Status ok = sweep ? check_sweep(state, *sweep) : Status(Error{sweep.error()});
    if (!ok) {
      message_ = ok.error();
      message_is_error_ = true;
    } else {
      const auto format = format_ == 0   ? plot::AnimationFormat::Mp4
                          : format_ == 1 ? plot::AnimationFormat::Gif
                                         : plot::AnimationFormat::FramesDir;
      auto sink = plot::open_frame_sink(format, path_, export_fps_, sweep->frames);
      if (!sink) {
        message_ = sink.error();
        message_is_error_ = true;
      } else {
        // Its own workspace, computed synchronously frame by frame, as `poslab export` does.
        auto own = std::make_unique<Workspace>();
        own->set_embeddings(workspace.embeddings(), workspace.embeddings_path());
        own->set_gpu_backend(gpu, {}, renderer);
        AnimationSource source;
        source.view = view_;
        // The CPU path: the figure thread may not use the window's OpenGL context.
        if (model_view) source.model = model_;
        // The state as it was before the player moved it (the parameter is set per frame anyway).
        export_ = std::make_unique<AnimationExport>(source, std::move(own), state, *sweep, static_cast<float>(scale_),
                                                    std::move(*sink));
        message_.clear();
        export_path_ = path_;
      }
    }
    ImGui::CloseCurrentPopup();
  }
  if (!can_start) ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Close")) ImGui::CloseCurrentPopup();
  if (!message_.empty()) {
    const ImVec4 colour = message_is_error_ ? ImVec4(1, 0.45f, 0.35f, 1) : ImVec4(0.6f, 0.85f, 0.6f, 1);
    ImGui::TextColored(colour, "%s", message_.c_str());
  }
  probe::value("export path", path_);
  ImGui::EndPopup();
}

}  // namespace poslab

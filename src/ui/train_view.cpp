#include "ui/train_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/formats/files.hpp"
#include "core/options.hpp"
#include "ui/assets.hpp"

namespace poslab {

namespace {

namespace fs = std::filesystem;

constexpr PositionKind kEncodings[] = {PositionKind::None, PositionKind::Sinusoidal, PositionKind::Learned,
                                       PositionKind::Rope, PositionKind::Alibi, PositionKind::T5};
constexpr plot::Color kMarkColor{0.45f, 0.45f, 0.50f, 1.0f};

// One colour per encoding in every figure, so a reader can follow "alibi" from plot to plot.
plot::Color encoding_color(PositionKind p) {
  for (int k = 0; k < 6; ++k)
    if (kEncodings[k] == p) return plot::series_color(k);
  return plot::series_color(6);
}

// RoPE as trained keeps its encoding's colour; each scaling its own.
plot::Color scaling_color(RopeScalingType t) {
  switch (t) {
    case RopeScalingType::Linear: return plot::series_color(0);
    case RopeScalingType::Ntk: return plot::series_color(1);
    case RopeScalingType::Dynamic: return plot::series_color(2);
    case RopeScalingType::Yarn: return plot::series_color(4);
    default: return encoding_color(PositionKind::Rope);
  }
}

plot::LinePlotFigure curves_panel(const std::vector<const ExtrapolationCurve*>& curves, bool accuracy, bool by_scaling,
                                  const std::string& title, plot::Point panel) {
  plot::LinePlotSpec spec;
  spec.title = title;
  spec.x_label = "evaluation length (log scale)";
  spec.y_label = accuracy ? "exact match (%)" : "loss per target token (log scale)";
  spec.log_x = true;
  spec.log_y = !accuracy;
  if (accuracy)
    spec.subtitle = by_scaling ? "the scaling's factor set from the length: s = tokens / training tokens"
                               : "fresh sequences per length; learned has no positions past its table";
  spec.width = panel.x;
  spec.height = panel.y;
  std::set<int> trained;
  for (const ExtrapolationCurve* c : curves) {
    plot::Series s;
    s.label = by_scaling ? (c->scaling == RopeScalingType::None ? c->model + " (as trained)" : c->label()) : c->model;
    s.color = by_scaling ? scaling_color(c->scaling) : encoding_color(c->positions);
    for (const EvalRow& r : c->rows) {
      s.x.push_back(r.length);
      // A length a learned table cannot reach is no point at all, not a zero.
      s.y.push_back(!r.supported ? std::nan("") : accuracy ? 100.0 * r.accuracy : r.loss);
    }
    spec.series.push_back(std::move(s));
    trained.insert(c->train_length);
  }
  for (int t : trained) spec.marks.push_back({static_cast<double>(t), "trained on " + std::to_string(t), kMarkColor});
  return plot::build_line_plot(spec, plot::figure_text_measure());
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

plot::Figure extrapolation_figure(const std::vector<ExtrapolationCurve>& curves, plot::Point panel) {
  std::vector<const ExtrapolationCurve*> as_trained, rope;
  for (const ExtrapolationCurve& c : curves) {
    if (c.scaling == RopeScalingType::None) as_trained.push_back(&c);
    if (c.positions == PositionKind::Rope) rope.push_back(&c);
  }
  const bool scaled = std::any_of(rope.begin(), rope.end(), [](auto* c) { return c->scaling != RopeScalingType::None; });
  plot::Figure figure;
  for (bool accuracy : {true, false}) {
    plot::Figure row;
    row.append_right(curves_panel(as_trained, accuracy, false,
                                  accuracy ? "Length extrapolation: exact match" : "Length extrapolation: loss", panel)
                         .figure);
    if (scaled)
      row.append_right(
          curves_panel(rope, accuracy, true, accuracy ? "RoPE with scaling at inference" : "RoPE with scaling: loss", panel).figure);
    figure.append_below(row);
  }
  return figure;
}

plot::LinePlotFigure training_loss_figure(const std::vector<TrainProgress::Run>& runs, plot::Point area) {
  plot::LinePlotSpec spec;
  spec.title = "Training loss";
  spec.subtitle = "mean over each stretch of steps; the copy or recall targets only";
  spec.x_label = "step";
  spec.y_label = "loss (log scale)";
  spec.log_y = true;
  spec.width = area.x;
  spec.height = area.y;
  for (const auto& run : runs) {
    if (run.log.empty()) continue;
    plot::Series s;
    s.label = run.encoding;
    s.markers = false;
    auto kind = parse_position_kind(run.encoding);
    s.color = encoding_color(kind ? *kind : PositionKind::Rope);
    // At most 300 points: the mean loss of each stretch of steps.
    const std::size_t n = run.log.size(), stretch = std::max<std::size_t>(1, (n + 299) / 300);
    for (std::size_t i = 0; i < n; i += stretch) {
      double sum = 0.0;
      std::size_t count = 0;
      for (std::size_t j = i; j < std::min(n, i + stretch); ++j, ++count) sum += run.log[j].loss;
      s.x.push_back(run.log[i].step + 0.5 * static_cast<double>(count - 1));
      s.y.push_back(sum / static_cast<double>(count));
    }
    spec.series.push_back(std::move(s));
  }
  return plot::build_line_plot(spec, plot::figure_text_measure());
}

std::string task_example(const TrainedModel& model) {
  const Batch b = make_batch(model.task, model.train_length, 1, 7);
  std::string text;
  for (int t = 0; t < b.tokens; ++t) text += token_character(model.task, b.ids[static_cast<std::size_t>(t)]);
  return text;
}

Result<State> state_for_trained_model(State state, const fs::path& dir) {
  auto model = load_model_folder(dir);
  if (!model) return Error{model.error()};
  if (auto applied = find_state_option("--model")->apply(state, dir.string()); !applied) return Error{applied.error()};
  state.model.sentence = task_example(*model);
  // The last layer first: that is where the copy task's induction heads are (in the shipped RoPE
  // model every head of layer 1 scores about 0.68, of layer 0 about 0.03).
  state.view.layer = model->model.layers - 1;
  state.view.mean_heads = false;
  state.view.head = 0;
  return state;
}

fs::path shipped_models_folder() { return asset_path("trained"); }

std::vector<fs::path> shipped_models() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (PositionKind p : kEncodings) {
    const fs::path dir = shipped_models_folder() / ("copy-" + std::string(to_string(p)));
    if (fs::exists(dir / "config.json", ec)) out.push_back(dir);
  }
  return out;
}

fs::path default_train_folder() {
  const char* data = std::getenv("XDG_DATA_HOME");
  if (data && *data && fs::path(data).is_absolute()) return fs::path(data) / "poslab" / "trained";
  const char* home = std::getenv("HOME");
  const fs::path base = home && *home ? fs::path(home) : fs::temp_directory_path();
  return base / ".local" / "share" / "poslab" / "trained";
}

TrainView::TrainView() {
  const std::string folder = default_train_folder().string();
  std::snprintf(folder_, sizeof folder_, "%s", folder.c_str());
  models_ = shipped_models();
  // The shipped models' table, measured when they were made (tools/train_shipped_models.sh).
  const fs::path table = shipped_models_folder() / "extrapolation.csv";
  std::error_code ec;
  if (fs::exists(table, ec))
    if (auto curves = parse_extrapolation_csv(read_text(table))) shown_.curves = std::move(*curves);
  // And their training losses, from the logs `poslab train --log` wrote beside them.
  for (const fs::path& model : models_) {
    auto log = parse_train_log_csv(read_text(fs::path(model.string() + ".log.csv")));
    if (!log || log->empty()) continue;
    const std::string name = model.filename().string(), encoding = name.substr(name.find('-') + 1);  // copy-rope → rope
    shown_.runs.push_back({encoding, std::move(*log), model, 0.0, true, false});
  }
}

void TrainView::start_training() {
  TrainJob job;
  for (int k = 0; k < 6; ++k) {
    if (!encodings_[k]) continue;
    TrainSettings s = default_train_settings();
    s.task = Task{task_ == 0 ? TaskKind::Copy : TaskKind::Recall, symbols_};
    s.model.positions = kEncodings[k];
    s.model.layers = layers_;
    s.model.width = width_;
    s.model.heads = heads_;
    s.train_length = train_length_;
    s.steps = steps_;
    s.batch = batch_;
    s.lr = lr_;
    s.seed = static_cast<std::uint64_t>(seed_);
    if (auto ok = check_app_limits(resolved_model(s)); !ok) return void(message_ = ok.error());
    if (auto ok = validate(s); !ok) return void(message_ = ok.error());
    job.runs.push_back(s);
  }
  if (job.runs.empty()) return void(message_ = "choose at least one encoding to train");
  job.folder = fs::path(folder_) / ("run-seed" + std::to_string(seed_));
  job.eval_sequences = eval_sequences_;
  message_.clear();
  if (worker_.start(std::move(job))) bring_ = Bring::Loss;  // live losses while it trains
}

void TrainView::evaluate_models(std::vector<fs::path> folders) {
  TrainJob job;
  job.eval_sequences = eval_sequences_;
  message_.clear();
  worker_.start(std::move(job), std::move(folders));
}

void TrainView::draw_settings() {
  const bool idle = !worker_.running();
  ImGui::BeginDisabled(!idle);
  ImGui::SetNextItemWidth(120);
  ImGui::Combo("task", &task_, "copy\0recall\0");
  ImGui::SameLine();
  ImGui::TextDisabled(task_ == 0 ? "x₀…x_{L−1} | x₀…x_{L−1}: scored on the copy" : "L key–value pairs | ⌈L/4⌉ keys: predict each value");
  ImGui::TextUnformatted("encodings:");
  for (int k = 0; k < 6; ++k) {
    ImGui::SameLine();
    ImGui::Checkbox(std::string(to_string(kEncodings[k])).c_str(), &encodings_[k]);
  }
  ImGui::PushItemWidth(90);
  ImGui::InputInt("layers", &layers_);
  ImGui::SameLine();
  ImGui::InputInt("width", &width_, 16);
  ImGui::SameLine();
  ImGui::InputInt("heads", &heads_);
  ImGui::SameLine();
  ImGui::InputInt("train length", &train_length_, 8);
  ImGui::InputInt("steps", &steps_, 100);
  ImGui::SameLine();
  ImGui::InputInt("batch", &batch_, 8);
  ImGui::SameLine();
  ImGui::InputFloat("learning rate", &lr_, 0.0f, 0.0f, "%.1e");
  ImGui::SameLine();
  ImGui::InputInt("seed", &seed_);
  ImGui::SameLine();
  ImGui::InputInt("symbols", &symbols_);
  ImGui::PopItemWidth();
  layers_ = std::clamp(layers_, 1, 4);
  width_ = std::clamp(width_, 32, 256);
  heads_ = std::clamp(heads_, 1, 16);
  train_length_ = std::clamp(train_length_, 2, 256);
  steps_ = std::clamp(steps_, 1, 100000);
  batch_ = std::clamp(batch_, 1, 512);
  symbols_ = std::clamp(symbols_, 4, static_cast<int>(kTaskAlphabet.size()));
  seed_ = std::max(seed_, 0);
  ImGui::SetNextItemWidth(420);
  ImGui::InputText("save in", folder_, sizeof folder_);
  ImGui::EndDisabled();
  if (idle) {
    if (ImGui::Button("Train")) start_training();
  } else if (ImGui::Button("Stop")) {
    worker_.stop();
  }
  ImGui::SameLine();
  ImGui::ProgressBar(static_cast<float>(shown_.fraction), ImVec2(260, 0), shown_.phase.empty() ? "idle" : shown_.phase.c_str());
  if (!message_.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "%s", message_.c_str());
  if (!shown_.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "%s", shown_.error.c_str());
  if (!shown_.runs.empty() && shown_.runs.front().seconds == 0.0 && !shown_.running)
    ImGui::TextDisabled("pre-trained on the copy task (tools/train_shipped_models.sh): %s", shipped_models_folder().string().c_str());
  for (const auto& run : shown_.runs)
    if (run.finished && run.seconds > 0.0)
      ImGui::TextDisabled("%s: %zu steps in %.1f s%s → %s", run.encoding.c_str(), run.log.size(), run.seconds,
                          run.stopped ? " (stopped)" : "", run.folder.string().c_str());
}

void TrainView::draw_models(fs::path& open_model) {
  if (models_.empty()) return;
  ImGui::TextUnformatted("trained models:");
  ImGui::SameLine();
  chosen_model_ = std::clamp(chosen_model_, 0, static_cast<int>(models_.size()) - 1);
  ImGui::SetNextItemWidth(360);
  const std::string current = models_[static_cast<std::size_t>(chosen_model_)].string();
  if (ImGui::BeginCombo("##model", current.c_str())) {
    for (std::size_t k = 0; k < models_.size(); ++k)
      if (ImGui::Selectable(models_[k].string().c_str(), static_cast<int>(k) == chosen_model_)) chosen_model_ = static_cast<int>(k);
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button("Open in the attention view")) open_model = models_[static_cast<std::size_t>(chosen_model_)];
  ImGui::SameLine();
  ImGui::BeginDisabled(worker_.running());
  if (ImGui::Button("Evaluate all")) evaluate_models(models_);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("each model at 1×, 2×, 4×, 8× and 16× its training length; RoPE also with PI, NTK, dynamic and YaRN");
}

void TrainView::draw(const plot::FontSet& fonts, fs::path& open_model) {
  if (worker_.version() != shown_version_) {
    shown_version_ = worker_.version();
    TrainProgress now = worker_.progress();
    // A job's models join the list as they are saved; its curves replace the plot once measured.
    for (const auto& run : now.runs)
      if (run.finished && std::find(models_.begin(), models_.end(), run.folder) == models_.end()) models_.push_back(run.folder);
    // The plot keeps the last measured curves (the shipped models' at first) until a job measures new ones.
    const bool measured = !now.curves.empty();
    if (!measured) now.curves = std::move(shown_.curves);
    if (measured && !now.running) bring_ = Bring::Curves;  // the job's result
    shown_ = std::move(now);
    loss_changed_ = true;
    curves_changed_ = curves_changed_ || measured;
  }
  draw_settings();
  draw_models(open_model);
  ImGui::Separator();
  if (!ImGui::BeginTabBar("train figures")) return;
  if (ImGui::BeginTabItem("Length extrapolation", nullptr, bring_ == Bring::Curves ? ImGuiTabItemFlags_SetSelected : 0)) {
    const plot::Point room = figure_room(fonts);
    if (shown_.curves.empty()) {
      ImGui::TextWrapped("Train a few encodings against each other; their extrapolation plot appears here once they are measured.");
    } else {
      if (extrapolation_refit_.now(curves_changed_, room)) {
        const auto& curves = shown_.curves;
        const plot::Point panel = fit_area(room, kMinArea, kMaxArea, [&](float w, float h) {
          return size_of(extrapolation_figure(curves, {w, h}));
        });
        extrapolation_ = extrapolation_figure(curves, panel);
        curves_changed_ = false;
      }
      show_figure(extrapolation_, room, fonts, extrapolation_textures_);
    }
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Training loss", nullptr, bring_ == Bring::Loss ? ImGuiTabItemFlags_SetSelected : 0)) {
    const plot::Point room = figure_room(fonts);
    if (loss_refit_.now(loss_changed_, room)) {
      const auto& runs = shown_.runs;
      const plot::Point area =
          fit_area(room, kMinArea, kMaxArea, [&](float w, float h) { return size_of(training_loss_figure(runs, {w, h}).figure); });
      loss_ = training_loss_figure(runs, area);
      loss_changed_ = false;
    }
    show_figure(loss_.figure, room, fonts, loss_textures_);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
  bring_ = Bring::Nothing;
}

plot::Figure TrainView::export_figure() const { return extrapolation_figure(shown_.curves, kExtrapolationPanel); }

std::string TrainView::export_csv() const { return extrapolation_csv(shown_.curves); }

}  // namespace poslab

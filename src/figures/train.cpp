#include "figures/train.hpp"


#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "base/files.hpp"
#include "core/options.hpp"
#include "figures/assets.hpp"

namespace poslab {

namespace {

namespace fs = std::filesystem;

constexpr plot::Color kMarkColor{0.45f, 0.45f, 0.50f, 1.0f};

// One colour per encoding in every figure, so a reader can follow "alibi" from plot to plot.
plot::Color encoding_color(PositionKind p) {
  for (int k = 0; k < 6; ++k)
    if (kTrainedEncodings[k] == p) return plot::series_color(k);
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
  for (PositionKind p : kTrainedEncodings) {
    const fs::path dir = shipped_models_folder() / ("copy-" + std::string(to_string(p)));
    if (fs::exists(dir / "config.json", ec)) out.push_back(dir);
  }
  return out;
}

fs::path default_train_folder() { return xdg_home(XdgFolder::Data) / "poslab" / "trained"; }

std::string read_text_file(const fs::path& path) {
  auto text = read_whole_file(path, kTableFile);  // a pipe or /dev/zero in the folder reads as nothing
  return text ? std::move(*text) : std::string();
}

}  // namespace poslab

#include "figures/training.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "plot/draw.hpp"
#include "plot/lines.hpp"

namespace poslab {

namespace {

struct Statistic {
  const char* title;
  const char* y_label;
  double (*value)(const HeadSummary&);
};

constexpr Statistic kStatistics[] = {
    {"Previous-token score", "mean weight on token i − 1", [](const HeadSummary& s) { return s.previous_token; }},
    {"Induction score", "weight after the earlier match", [](const HeadSummary& s) { return s.induction; }},
    {"First-token (sink) weight", "mean weight on token 0", [](const HeadSummary& s) { return s.sink; }},
    {"Mean attended distance", "tokens", [](const HeadSummary& s) { return s.mean_distance; }},
};

// Where revision k sits on the x axis, and what the axis says.
double x_of(const std::vector<hub::RevisionStats>& rows, std::size_t k, bool by_step) {
  return by_step ? static_cast<double>(*rows[k].step) : static_cast<double>(k);
}

std::string x_label(const std::vector<hub::RevisionStats>& rows, bool by_step) {
  if (by_step) return "training step";
  std::string label = "revision, in the order given: ";
  for (std::size_t k = 0; k < rows.size(); ++k) label += (k ? ", " : "") + std::to_string(k) + " = " + rows[k].revision;
  return label;
}

plot::LinePlotSpec panel_spec(const char* title, const char* y_label, const std::vector<hub::RevisionStats>& rows, bool by_step,
                              plot::Point panel) {
  plot::LinePlotSpec spec;
  spec.title = title;
  spec.x_label = x_label(rows, by_step);
  spec.y_label = y_label;
  spec.width = panel.x;
  spec.height = panel.y;
  return spec;
}

plot::Figure statistic_panel(const Statistic& stat, const std::vector<hub::RevisionStats>& rows, bool by_step, plot::Point panel) {
  plot::LinePlotSpec spec = panel_spec(stat.title, stat.y_label, rows, by_step, panel);
  const std::size_t heads = rows.empty() ? 0 : rows.front().heads.size();
  for (std::size_t h = 0; h < heads; ++h) {
    plot::Series s;
    s.label = "head " + std::to_string(h);
    s.color = plot::series_color(static_cast<int>(h));
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (h >= rows[k].heads.size()) continue;
      const double v = stat.value(rows[k].heads[h]);
      if (!std::isfinite(v)) continue;
      s.x.push_back(x_of(rows, k, by_step));
      s.y.push_back(v);
    }
    spec.series.push_back(std::move(s));
  }
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

plot::Figure loss_panel(const std::vector<hub::RevisionStats>& rows, bool by_step, const std::string& model, plot::Point panel) {
  plot::LinePlotSpec spec = panel_spec("Loss on the sentence", "next-token cross-entropy, nats", rows, by_step, panel);
  spec.subtitle = model;
  plot::Series s;
  s.label = "loss";
  s.color = plot::Color{0.1f, 0.1f, 0.1f, 1.0f};
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (std::isfinite(rows[k].loss)) {
      s.x.push_back(x_of(rows, k, by_step));
      s.y.push_back(rows[k].loss);
    }
  spec.series.push_back(std::move(s));
  return plot::build_line_plot(spec, plot::figure_text_measure()).figure;
}

}  // namespace

plot::Figure training_figure(const std::vector<hub::RevisionStats>& rows, int layer, const std::string& model, plot::Point panel,
                             int columns) {
  const bool by_step = hub::steps_known(rows);
  std::vector<plot::Figure> panels;
  for (int k = 0; k < 4; ++k) panels.push_back(statistic_panel(kStatistics[k], rows, by_step, panel));
  panels.push_back(loss_panel(rows, by_step, model + " · layer " + std::to_string(layer), panel));
  plot::Figure figure, row;
  const std::size_t per_row = static_cast<std::size_t>(std::max(1, columns));
  for (std::size_t k = 0; k < panels.size(); ++k) {
    row.append_right(panels[k]);
    if ((k + 1) % per_row == 0 || k + 1 == panels.size()) figure.append_below(std::exchange(row, plot::Figure{}));
  }
  return figure;
}

plot::Figure training_figure_to_fit(const std::vector<hub::RevisionStats>& rows, int layer, const std::string& model, float width) {
  // The most columns whose plotting areas, narrowed to share the room, keep the smallest width.
  for (int columns : {3, 2, 1}) {
    const plot::Figure full = training_figure(rows, layer, model, kTrainingPanel, columns);
    if (full.width <= width) return full;
    const float margins = full.width - static_cast<float>(columns) * kTrainingPanel.x;
    const float area = std::floor((width - margins) / static_cast<float>(columns));
    if (area < kTrainingMinPanel.x && columns > 1) continue;
    const auto at = [&](float a) { return training_figure(rows, layer, model, {std::max(a, kTrainingMinPanel.x), kTrainingPanel.y}, columns); };
    plot::Figure fitted = at(area);
    // Narrower areas may shorten a label, not lengthen one: a second try takes what is still over.
    if (fitted.width > width) fitted = at(area - std::ceil((fitted.width - width) / static_cast<float>(columns)));
    return fitted;
  }
  return {};  // not reached: one column always returns
}


}  // namespace poslab

#include "figures/distance.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/workspace.hpp"

namespace poslab {

namespace {

// Points per decade of distance: each point is the mean over the offsets it stands for (weighted
// by their cells), so that lines stay legible and dots apart at any length; near the query every
// distance keeps a point of its own.
constexpr double kLinePointsPerDecade = 40.0, kDotsPerDecade = 10.0;

// One head's curve on one side of the query (sign −1: keys before it, +1: after), binned on the log axis.
void binned_curve(const DistanceProfile& d, int head, int sign, double per_decade, plot::Series& series) {
  const auto& mean = d.mean_weight[static_cast<std::size_t>(head)];
  std::vector<std::size_t> order;  // indices of the side's offsets, by distance
  for (std::size_t k = 0; k < d.offsets.size(); ++k)
    if (d.offsets[k] * sign > 0) order.push_back(k);
  if (sign < 0) std::reverse(order.begin(), order.end());
  double sum = 0.0, cells = 0.0, first = 0.0;
  for (std::size_t n = 0; n < order.size(); ++n) {
    const std::size_t k = order[n];
    const double distance = std::abs(d.offsets[k]);
    if (cells == 0.0) first = distance;
    sum += mean[k] * d.cells[k];
    cells += d.cells[k];
    const bool last = n + 1 == order.size();
    if (last || std::log10(std::abs(d.offsets[order[n + 1]])) - std::log10(first) >= 1.0 / per_decade) {
      if (sum > 0.0) {  // log axes: a zero mean has no place on them
        series.x.push_back(std::sqrt(first * distance));  // the bin's middle on the log axis
        series.y.push_back(sum / cells);
      }
      sum = cells = 0.0;
    }
  }
}

std::string sink_label(int head, double sink) {
  char label[64];
  std::snprintf(label, sizeof label, "head %d · sink %.3g", head, sink);
  return label;
}

}  // namespace

plot::LinePlotFigure distance_figure(const Results& r, const DistanceProfile& d, float width, float height) {
  plot::LinePlotSpec spec;
  char title[160];
  std::snprintf(title, sizeof title, "Attention by distance · %d tokens, %d heads%s", r.problem.queries(), d.heads,
                r.problem.causal ? ", causal" : "");
  spec.title = title;
  const bool after_keys = !d.offsets.empty() && d.offsets.back() > 0;
  spec.subtitle = after_keys ? "mean weight at each distance |key − query| (lines: keys before the query; dots: keys "
                               "after it); sink = mean weight on the first token"
                             : "mean weight at each distance |key − query| over the keys before the query; sink = mean "
                               "weight on the first token";
  spec.x_label = "distance |key − query| (tokens)";
  spec.y_label = "mean attention weight";
  spec.log_x = true;
  spec.log_y = true;
  spec.width = width;
  spec.height = height;
  for (int h = 0; h < d.heads; ++h) {
    plot::Series before{sink_label(h, d.sink[static_cast<std::size_t>(h)]), {}, {}, plot::series_color(h), false};
    binned_curve(d, h, -1, kLinePointsPerDecade, before);
    plot::Series after{"", {}, {}, plot::series_color(h), true, plot::Stroke::None};
    binned_curve(d, h, +1, kDotsPerDecade, after);
    if (before.x.empty() && !after.x.empty()) after.label = before.label;
    if (!before.x.empty()) spec.series.push_back(std::move(before));
    if (!after.x.empty()) spec.series.push_back(std::move(after));
  }
  return plot::build_line_plot(spec, plot::figure_text_measure());
}

plot::LinePlotFigure distance_figure_to_fill(const Results& r, const DistanceProfile& d, plot::Point room, Overflow overflow) {
  const plot::Point area = fit_area(
      room, kMinArea, kMaxArea, [&](float w, float h) { return size_of(distance_figure(r, d, w, h).figure); }, overflow);
  return distance_figure(r, d, area.x, area.y);
}

plot::Figure distance_export_figure(const Results& r) {
  return distance_figure(r, attention_by_distance(r.attention.weights, r.problem), 640.0f, 360.0f).figure;
}

std::string distance_csv(const Results& r) {
  std::ostringstream out;
  write_distance_csv(out, attention_by_distance(r.attention.weights, r.problem));
  return out.str();
}

}  // namespace poslab

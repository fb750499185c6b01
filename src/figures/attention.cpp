#include "figures/attention.hpp"

#include <imgui_internal.h>  // SetItemUsingMouseWheel: the wheel zooms the heatmap

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "figures/fit.hpp"

namespace poslab {

int clamp_head(const State& state, const Results& r) {
  return std::clamp(state.view.head, 0, std::max(0, r.problem.heads - 1));
}

namespace {

// What the scores are: a real model says its own (T5's unscaled q·k, Gemma's scalar); the
// settings' attention divides by √d_h and adds its bias, if any.
std::string score_formula(const Results& r) {
  if (!r.score_formula.empty()) return r.score_formula;
  return r.problem.relative_bias.size() > 0 || r.problem.shaw ? "q·k/√d_h + b" : "q·k/√d_h";
}

constexpr plot::Point kSmallestGrid{120.0f, 120.0f}, kLargestGrid{2000.0f, 1400.0f};

// The figure's size with a cell area `grid` points large, laid out without painting its cells.
plot::Point heatmap_size(const plot::HeatmapSpec& spec, plot::Point grid) {
  const plot::LayoutOnly layout_only;
  plot::HeatmapSpec trial = spec;
  trial.side = grid.x;
  trial.row_height = grid.y / static_cast<float>(std::max<Eigen::Index>(spec.values->rows(), 1));
  return size_of(plot::build_heatmap(trial, plot::figure_text_measure()).figure);
}

}  // namespace

std::string describe_computation(const State& state, const Results& r) {
  if (!r.description.empty()) return r.description;
  const ModelSettings& m = state.model;
  char projection[64];
  if (m.projection == ProjectionKind::Random)
    std::snprintf(projection, sizeof projection, "random W (σ %g, seed %llu)", m.sigma,
                  static_cast<unsigned long long>(m.seed));
  else
    std::snprintf(projection, sizeof projection, "identity W");
  std::string masks = m.causal ? "causal mask" : "no causal mask";
  if (m.pad_to > 0) masks += ", padded to " + std::to_string(r.tokens.size());
  return describe_encoding(m) + " · " + projection + " · " + masks + " · d_h " + std::to_string(r.problem.head_dim());
}

plot::HeatmapSpec attention_spec(const State& state, const Results& r, float side) {
  const int head = clamp_head(state, r);
  const bool weights = state.view.value == HeatmapValue::Weights;
  const std::vector<Matrix>& per_head = weights ? r.attention.weights : r.attention.scores;
  static thread_local Matrix mean;  // the spec points at it while the figure is built
  if (state.view.mean_heads) mean = mean_over_heads(per_head);
  const Matrix& values = state.view.mean_heads ? mean : per_head[static_cast<std::size_t>(head)];
  plot::HeatmapSpec spec;
  spec.title = std::string(weights ? "Attention weights" : "Attention scores") +
               (state.view.mean_heads ? " · mean of " + std::to_string(r.problem.heads) + " heads"
                                      : " · head " + std::to_string(head) + " of " + std::to_string(r.problem.heads));
  const int kv = r.description.empty() ? key_value_heads(state.model) : r.problem.heads;
  if (kv != r.problem.heads && r.problem.heads % kv == 0 && !state.view.mean_heads)
    spec.title += " (key/value head " + std::to_string(head / (r.problem.heads / kv)) + " of " + std::to_string(kv) + ")";
  spec.subtitle = describe_computation(state, r);
  for (const Token& t : r.tokens) spec.row_labels.push_back(t.text);
  for (const Token& t : r.key_tokens) spec.col_labels.push_back(t.text);
  spec.row_axis = "query";
  spec.col_axis = "key";
  spec.values = &values;
  const AttentionProblem* problem = &r.problem;
  spec.masked = [problem](int i, int j) { return problem->masked(i, j); };
  spec.any_masked = problem->causal || std::find(problem->key_valid.begin(), problem->key_valid.end(), 0) !=
                                           problem->key_valid.end();
  if (weights) {
    spec.colormap = plot::Colormap::Viridis;
    spec.vmin = 0.0f;
    spec.vmax = std::max(values.maxCoeff(), 1e-6f);
    spec.value_label = "weight  softmax(" + score_formula(r) + ")";
  } else {
    float extent = 0.0f;  // symmetric about 0 so that white means a zero score
    for (Eigen::Index i = 0; i < values.size(); ++i)
      if (std::isfinite(values.data()[i])) extent = std::max(extent, std::abs(values.data()[i]));
    spec.colormap = plot::Colormap::Diverging;
    spec.vmin = -std::max(extent, 1e-6f);
    spec.vmax = std::max(extent, 1e-6f);
    spec.value_label = "score  " + score_formula(r);
  }
  spec.side = side;
  return spec;
}

plot::HeatmapFigure attention_figure(const State& state, const Results& r, float side) {
  return plot::build_heatmap(attention_spec(state, r, side), plot::figure_text_measure());
}

plot::Point attention_smallest(const State& state, const Results& r) {
  return heatmap_size(attention_spec(state, r, kExportSide), kSmallestGrid);
}

plot::HeatmapSpec attention_spec_to_fill(const State& state, const Results& r, plot::Point room, Overflow overflow) {
  plot::HeatmapSpec spec = attention_spec(state, r, kExportSide);
  const auto rows = static_cast<float>(std::max<Eigen::Index>(spec.values->rows(), 1));
  const auto cols = static_cast<float>(std::max<Eigen::Index>(spec.values->cols(), 1));
  plot::Point grid = fit_area(
      room, kSmallestGrid, kLargestGrid,
      [&](float width, float height) {
        return heatmap_size(spec, {width, height});
      },
      overflow);
  // A cell far wider than tall (or the reverse) reads as a table, not a matrix.
  const float cell_w = grid.x / cols, cell_h = grid.y / rows;
  if (cell_w > kMaxCellAspect * cell_h) grid.x = std::max(kSmallestGrid.x, kMaxCellAspect * cell_h * cols);
  if (cell_h > kMaxCellAspect * cell_w) grid.y = std::max(kSmallestGrid.y, kMaxCellAspect * cell_w * rows);
  spec.side = std::floor(grid.x);
  spec.row_height = std::floor(grid.y) / rows;
  return spec;
}

}  // namespace poslab

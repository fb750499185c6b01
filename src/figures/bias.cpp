#include "figures/bias.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/encodings/bias.hpp"
#include "core/workspace.hpp"
#include "figures/fit.hpp"

namespace poslab {

namespace {

// One head's bias as a T_q × T_k matrix, from a heads × (T_q + T_k − 1) offset table.
Matrix bias_matrix(const Matrix& table, int head, int Tq, int Tk) {
  Matrix B(Tq, Tk);
  for (int i = 0; i < Tq; ++i) B.row(i) = table.row(head).segment(Tq - 1 - i, Tk);
  return B;
}

std::string slopes_text(int heads) {
  std::string text = "ALiBi slopes m_h:";
  const auto slopes = alibi_slopes(heads);
  for (std::size_t h = 0; h < slopes.size() && h < 8; ++h) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " 2^%g", std::log2(slopes[h]));
    text += buf;
  }
  if (slopes.size() > 8) text += " …";
  return text;
}

plot::Figure side_by_side(const std::vector<plot::Figure>& parts) {
  plot::Figure all;
  for (const plot::Figure& part : parts) all.append_right(part);
  return all;
}

// The panels of one bias kind (ALiBi: its matrix; T5: its matrix and the bucket map) for the
// shown head. `preview` marks a bias the state does not apply.
std::vector<plot::Figure> bias_panels(ModelSettings m, BiasKind kind, const Results& r, int head, float side, bool preview) {
  m.bias = kind;
  const int Tq = r.problem.queries(), Tk = r.problem.keys(), heads = r.problem.heads;
  // The spec points at these while the figure is built. They depend on the settings, the head and
  // the sizes only, so the trial layouts that fit a figure to its panel compute them once (a long
  // sentence's T × T matrices, and T² bucket lookups, per trial froze the window).
  struct Cached {
    ModelSettings m;
    int head = -1, heads = 0, Tq = 0, Tk = 0;
    bool operator==(const Cached&) const = default;
  };
  static thread_local Cached cached[2], cached_buckets;  // ALiBi, T5
  static thread_local Matrix matrices[2], buckets;
  const int slot = kind == BiasKind::Alibi ? 0 : 1;
  const Cached key{m, head, heads, Tq, Tk};
  Matrix& B = matrices[slot];
  if (!(cached[slot] == key)) {
    B = bias_matrix(relative_bias(m, heads, Tq, Tk), head, Tq, Tk);
    cached[slot] = key;
  }
  plot::HeatmapSpec spec;
  spec.values = &B;
  for (const Token& t : r.tokens) spec.row_labels.push_back(t.text);
  for (const Token& t : r.key_tokens) spec.col_labels.push_back(t.text);
  spec.row_axis = "query i";
  spec.col_axis = "key j";
  const AttentionProblem* problem = &r.problem;
  spec.masked = [problem](int i, int j) { return problem->masked(i, j); };
  const float extent = std::max(B.cwiseAbs().maxCoeff(), 1e-6f);
  spec.colormap = plot::Colormap::Diverging;
  spec.vmin = -extent;
  spec.vmax = extent;
  spec.value_label = "bias added to q·k/√d_h";
  spec.side = side;
  // Long sentences: known masks without a call per cell, and no more texels than a 4× export shows.
  spec.any_masked = problem->causal || std::find(problem->key_valid.begin(), problem->key_valid.end(), 0) !=
                                           problem->key_valid.end();
  spec.max_texels = static_cast<int>(std::ceil(side * 4.0f));
  const std::string note = preview ? " · preview" : "";
  if (kind == BiasKind::Alibi) {
    char title[128];
    std::snprintf(title, sizeof title, "ALiBi · head %d of %d · slope %g%s", head, heads,
                  alibi_slopes(heads)[static_cast<std::size_t>(head)], note.c_str());
    spec.title = title;
    spec.subtitle = std::string(m.causal ? "−m·(i − j) for j ≤ i" : "−m·|i − j|") + " · " + slopes_text(heads);
    return {plot::build_heatmap(spec, plot::figure_text_measure()).figure};
  }
  spec.title = "T5 · head " + std::to_string(head) + " of " + std::to_string(heads) + note;
  spec.subtitle = std::string(m.causal ? "causal" : "bidirectional") + " buckets: " + std::to_string(m.buckets) +
                  ", max distance " + std::to_string(m.max_distance) + " · a seeded table per head";
  plot::Figure bias = plot::build_heatmap(spec, plot::figure_text_measure()).figure;

  if (!(cached_buckets == key)) {
    buckets.resize(B.rows(), B.cols());
    for (Eigen::Index i = 0; i < B.rows(); ++i)
      for (Eigen::Index j = 0; j < B.cols(); ++j)
        buckets(i, j) = static_cast<float>(t5_bucket(static_cast<int>(j - i), !m.causal, m.buckets, m.max_distance));
    cached_buckets = key;
  }
  plot::HeatmapSpec map = spec;
  map.values = &buckets;
  map.masked = nullptr;
  map.any_masked.reset();
  map.colormap = plot::Colormap::Viridis;
  map.vmin = 0.0f;
  map.vmax = static_cast<float>(m.buckets - 1);
  map.value_label = "bucket of j − i";
  map.value_format = "%.0f";
  map.title = "T5 bucket map";
  map.subtitle = "exact up to " + std::to_string(m.buckets / (m.causal ? 2 : 4)) + ", then logarithmic";
  return {bias, plot::build_heatmap(map, plot::figure_text_measure()).figure};
}

}  // namespace

plot::Figure bias_figure(const State& state, const Results& r, float side) {
  const ModelSettings& m = state.model;
  const int head = std::clamp(state.view.head, 0, r.problem.heads - 1);
  if (m.bias == BiasKind::Alibi || m.bias == BiasKind::T5) return side_by_side(bias_panels(m, m.bias, r, head, side, false));
  // No ALiBi or T5 in the state: show what each would add, marked as a preview.
  std::vector<plot::Figure> parts = bias_panels(m, BiasKind::Alibi, r, head, side, true);
  for (plot::Figure& f : bias_panels(m, BiasKind::T5, r, head, side, true)) parts.push_back(std::move(f));
  return side_by_side(parts);
}

plot::Figure bias_figure_to_fill(const State& state, const Results& r, plot::Point room, Overflow overflow) {
  const float side = std::floor(fit_size(
      room, kMinSide, kMaxSide, [&](float s) { return size_of(bias_figure(state, r, s)); }, overflow));
  return bias_figure(state, r, side);
}

}  // namespace poslab

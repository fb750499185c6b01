#include "ui/bias_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/bias.hpp"
#include "core/workspace.hpp"

namespace poslab {

namespace {

// The shown head's bias as a T_q × T_k matrix, from the problem's offset table.
Matrix bias_matrix(const AttentionProblem& p, int head) {
  const int Tq = p.queries(), Tk = p.keys();
  Matrix B(Tq, Tk);
  for (int i = 0; i < Tq; ++i) B.row(i) = p.relative_bias.row(head).segment(Tq - 1 - i, Tk);
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

}  // namespace

plot::Figure bias_figure(const State& state, const Results& r, float side) {
  const ModelSettings& m = state.model;
  if (r.problem.relative_bias.size() == 0) return {};
  const int head = std::clamp(state.view.head, 0, r.problem.heads - 1);
  static thread_local Matrix B, buckets;  // the spec points at them while the figure is built
  B = bias_matrix(r.problem, head);
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
  if (m.bias == BiasKind::Alibi) {
    char title[96];
    std::snprintf(title, sizeof title, "ALiBi bias · head %d of %d · slope %g", head, r.problem.heads,
                  alibi_slopes(r.problem.heads)[static_cast<std::size_t>(head)]);
    spec.title = title;
    spec.subtitle = std::string(m.causal ? "−m·(i − j) for j ≤ i" : "−m·|i − j|") + " · " + slopes_text(r.problem.heads);
    return plot::build_heatmap(spec, plot::figure_text_measure()).figure;
  }
  spec.title = "T5 bias · head " + std::to_string(head) + " of " + std::to_string(r.problem.heads);
  spec.subtitle = std::string(m.causal ? "causal" : "bidirectional") + " buckets: " + std::to_string(m.buckets) +
                  ", max distance " + std::to_string(m.max_distance);
  plot::Figure figure = plot::build_heatmap(spec, plot::figure_text_measure()).figure;

  buckets.resize(B.rows(), B.cols());
  for (Eigen::Index i = 0; i < B.rows(); ++i)
    for (Eigen::Index j = 0; j < B.cols(); ++j)
      buckets(i, j) = static_cast<float>(t5_bucket(static_cast<int>(j - i), !m.causal, m.buckets, m.max_distance));
  plot::HeatmapSpec map = spec;
  map.values = &buckets;
  map.masked = nullptr;
  map.colormap = plot::Colormap::Viridis;
  map.vmin = 0.0f;
  map.vmax = static_cast<float>(m.buckets - 1);
  map.value_label = "bucket of j − i";
  map.value_format = "%.0f";
  map.title = "T5 bucket map";
  map.subtitle = "exact up to " + std::to_string(m.buckets / (m.causal ? 2 : 4)) + ", then logarithmic";
  const plot::Figure right = plot::build_heatmap(map, plot::figure_text_measure()).figure;
  plot::Figure both;
  both.width = figure.width + right.width;
  both.height = std::max(figure.height, right.height);
  both.place(figure, {0, 0});
  both.place(right, {figure.width, 0});
  return both;
}

void BiasView::draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  const Results* r = workspace.results();
  if (!r) return;
  if (r->problem.relative_bias.size() == 0) {
    ImGui::TextWrapped("Choose ALiBi or T5 under \"Bias and cross-attention\" to see the bias each head adds "
                       "to the scores.");
    return;
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const bool two = state.model.bias == BiasKind::T5;
  const float side = std::max(120.0f, std::floor(std::min(avail.x / (two ? 2.0f : 1.0f) - 170.0f, avail.y - 170.0f)));
  if (built_version_ != workspace.version() || !(built_view_ == state.view) || std::abs(built_side_ - side) > 0.5f) {
    figure_ = bias_figure(state, *r, side);
    built_version_ = workspace.version();
    built_view_ = state.view;
    built_side_ = side;
  }
  plot::draw_figure(ImGui::GetWindowDrawList(), figure_, ImGui::GetCursorScreenPos(), 1.0f, fonts, textures_);
  ImGui::Dummy(ImVec2(figure_.width, figure_.height));
}

}  // namespace poslab

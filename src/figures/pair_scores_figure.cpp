// The score-by-pair lens (`poslab export pair-scores`): one head's scores split by rotary pair,
// drawn as pairs against distance and written cell by cell.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "base/csv.hpp"
#include "core/model/pair_scores.hpp"
#include "core/model/position_design.hpp"
#include "figures/attention.hpp"
#include "figures/model.hpp"
#include "plot/heatmap.hpp"
#include "plot/draw.hpp"

namespace poslab {

namespace {

// Rows: the pairs, then the rest; columns: distance i − j. Each cell the mean part over the seen
// cells at that distance (of one query's row, or of every query).
Matrix parts_by_distance(const PairScores& p, const LayerAttention& a, int query) {
  const std::vector<const Matrix*> rows = [&p] {
    std::vector<const Matrix*> r;
    for (const Matrix& m : p.parts) r.push_back(&m);
    if (p.rest.size() > 0) r.push_back(&p.rest);
    return r;
  }();
  const Eigen::Index T = rows.empty() ? 0 : rows.front()->rows();
  Matrix out = Matrix::Zero(static_cast<Eigen::Index>(rows.size()), T);
  std::vector<int> seen(static_cast<std::size_t>(T), 0);
  for (Eigen::Index i = 0; i < T; ++i) {
    if (query >= 0 && i != query) continue;
    for (Eigen::Index j = 0; j <= i && j < rows.front()->cols(); ++j) {
      if (a.masked(static_cast<int>(i), static_cast<int>(j))) continue;
      ++seen[static_cast<std::size_t>(i - j)];
      for (std::size_t r = 0; r < rows.size(); ++r) out(static_cast<Eigen::Index>(r), i - j) += (*rows[r])(i, j);
    }
  }
  for (Eigen::Index d = 0; d < T; ++d)
    if (seen[static_cast<std::size_t>(d)] > 0) out.col(d) /= static_cast<float>(seen[static_cast<std::size_t>(d)]);
  return out;
}

std::string theta_text(double theta) {
  if (theta == 0.0) return "still";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", theta);
  return text;
}

}  // namespace

Result<ModelViewOutput> pair_scores_output(const State& state, const ModelRun& run, const TransformerConfig& c) {
  const ForwardResult& f = run.shown();
  const int layer = run.request.layer, head = state.view.head, query = state.view.query;
  const LayerAttention* a = f.layer(layer);
  if (!a) return Error{"layer " + std::to_string(layer) + " was not kept"};
  const int T = static_cast<int>(f.ids.size());
  if (query >= T)
    return Error{"--query " + std::to_string(query) + " is out of range: the sentence has " + std::to_string(T) + " tokens (0 to " +
                 std::to_string(T - 1) + ")"};
  auto split = pair_scores(*a, c, run.request.intervention, head, T);
  if (!split) return Error{split.error()};
  const PairScores& p = *split;
  // The CSV: every seen cell of the head (of the query's row), one line per pair and the rest.
  std::ostringstream csv;
  csv << "query,key,pair,theta,contribution\n";
  for (int i = 0; i < T; ++i) {
    if (query >= 0 && i != query) continue;
    for (int j = 0; j < T; ++j) {
      if (a->masked(i, j)) continue;
      for (std::size_t k = 0; k < p.parts.size(); ++k)
        csv << i << ',' << j << ',' << k << ',' << format_float(static_cast<float>(p.thetas[k])) << ',' << format_float(p.parts[k](i, j)) << '\n';
      if (p.rest.size() > 0) csv << i << ',' << j << ",-1,0," << format_float(p.rest(i, j)) << '\n';
    }
  }
  // The figure: pairs against distance, diverging around 0.
  static thread_local Matrix values;  // the spec points at it while the figure is built
  values = parts_by_distance(p, *a, query);
  plot::HeatmapSpec spec;
  spec.title = "Score by rotary pair · layer " + std::to_string(layer) + " · head " + std::to_string(head);
  const std::string rows = query >= 0 ? "query " + std::to_string(query) + " (" + visible_token(f.tokens[static_cast<std::size_t>(query)]) + ")"
                                      : "the mean over queries at each distance";
  spec.subtitle = "each score q·k/√d_h is the sum of its pairs' parts" + std::string(p.rest.size() > 0 ? " and the unrotated rest" : "") +
                  (c.attn_softcap > 0.0 ? " (before the soft-cap)" : "") + " · " + rows + " · layer " + std::to_string(layer) + ": " +
                  describe_layer_positions(c, layer) + (run.changed ? " · " + run.describe() : "");
  spec.row_axis = "pair i (θ per position)";
  spec.col_axis = "distance i − j";
  for (std::size_t k = 0; k < p.parts.size(); ++k) spec.row_labels.push_back(std::to_string(k) + " (" + theta_text(p.thetas[k]) + ")");
  if (p.rest.size() > 0) spec.row_labels.push_back("rest");
  spec.index_cols = true;
  for (int d = 0; d < T; ++d) spec.col_labels.push_back(std::to_string(d));
  spec.values = &values;
  spec.colormap = plot::Colormap::Diverging;
  const float extent = values.size() > 0 ? std::max(values.cwiseAbs().maxCoeff(), 1e-6f) : 1.0f;
  spec.vmin = -extent;
  spec.vmax = extent;
  spec.value_label = "part of the score";
  spec.value_format = "%.2g";
  spec.side = kExportSide;
  if (values.rows() > 0 && values.cols() > 0)
    spec.row_height = std::max(4.0f, std::min(kExportSide / static_cast<float>(values.cols()) * 2.0f, kExportSide / static_cast<float>(values.rows())));
  return ModelViewOutput{plot::build_heatmap(spec, plot::figure_text_measure()).figure, csv.str()};
}

}  // namespace poslab

#include "figures/dog.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/export_data.hpp"
#include "core/workspace.hpp"
#include "plot/heatmap.hpp"
#include "figures/fit.hpp"

namespace poslab {

namespace {

// The smallest row height at which every row keeps its label (13-point labels need 16.25).
constexpr float kMinRowHeight = 17.0f;

std::string why(const DogCase& c) {
  if (c.comparison.identical())
    return "identical: the same word with the same neighbours, in another order — attention cannot tell them apart";
  if (c.encoding == EncodingKind::None)
    return "different without positions: the causal mask shows each occurrence a different prefix";
  return "different: the positions make the two occurrences distinguishable";
}

// One panel: rows of outputs (one per token or occurrence) against output dimension, on the
// diverging scale ±extent shared by every panel of the figure.
plot::Figure outputs_panel(const std::string& title, const std::string& subtitle, const Matrix& values,
                           std::vector<std::string> rows, float extent, float width, float row_height) {
  plot::HeatmapSpec spec;
  spec.title = title;
  spec.subtitle = subtitle;
  spec.values = &values;
  spec.row_labels = std::move(rows);
  spec.row_axis = "";
  spec.col_axis = "output dimension";
  spec.index_cols = true;
  spec.colormap = plot::Colormap::Diverging;
  spec.vmin = -extent;
  spec.vmax = extent;
  spec.value_label = "";
  spec.side = width;
  spec.row_height = row_height;
  return plot::build_heatmap(spec, plot::figure_text_measure()).figure;
}

// The shuffle: outputs in sentence order, the shuffled sentence's outputs, and their difference
// once the first are put in the shuffled order.
plot::Figure permutation_figure(const PermutationCheck* check, float width, float row_height) {
  const auto& order = check->order;
  Matrix difference = check->shuffled_outputs;
  for (std::size_t k = 0; k < order.size(); ++k)
    difference.row(static_cast<Eigen::Index>(k)) -= check->outputs.row(order[k]);
  const float extent =
      std::max({check->outputs.cwiseAbs().maxCoeff(), check->shuffled_outputs.cwiseAbs().maxCoeff(), 1e-6f});
  std::vector<std::string> shuffled_tokens;
  std::string shuffled_text;
  for (int k : order) {
    shuffled_tokens.push_back(check->tokens[static_cast<std::size_t>(k)]);
    shuffled_text += (shuffled_text.empty() ? "" : " ") + check->tokens[static_cast<std::size_t>(k)];
  }
  char verdict[200];
  std::snprintf(verdict, sizeof verdict,
                "no positions, no mask: max |shuffled − reordered| = %.2g — the outputs move with their tokens; "
                "with RoPE: %.2g",
                check->max_abs_diff_none, check->max_abs_diff_rope);
  plot::Figure figure;
  figure.append_below(outputs_panel("Permute: outputs of the sentence, no positions, no mask", "", check->outputs,
                                    check->tokens, extent, width, row_height));
  figure.append_below(outputs_panel("Outputs of the shuffled sentence “" + shuffled_text + "”", "",
                                    check->shuffled_outputs, shuffled_tokens, extent, width, row_height));
  figure.append_below(outputs_panel("Shuffled outputs − the original outputs in the shuffled order", verdict,
                                    difference, shuffled_tokens, extent, width, row_height));
  return figure;
}

}  // namespace

Result<DogData> dog_data(const State& state, const EmbeddingTable& table) {
  auto cases = dog_cases(state.model, table);
  if (!cases) return Error{cases.error()};
  DogData data{std::move(*cases), std::nullopt};
  if (state.view.permutation > 0) {
    auto check = permutation_check(state.model, table, static_cast<std::uint64_t>(state.view.permutation));
    if (!check) return Error{check.error()};
    data.check = std::move(*check);
  }
  return data;
}

Result<plot::Figure> dog_figure(const State& state, const EmbeddingTable& table, float width, float row_height) {
  auto data = dog_data(state, table);
  if (!data) return Error{data.error()};
  return dog_figure(*data, state, width, row_height);
}

plot::Figure dog_figure(const DogData& data, const State& state, float width, float row_height) {
  const std::vector<DogCase>* cases = &data.cases;
  plot::Figure figure;
  float extent = 1e-6f;
  for (const DogCase& c : *cases) extent = std::max(extent, c.outputs.cwiseAbs().maxCoeff());
  for (const DogCase& c : *cases) {
    Matrix rows(3, c.outputs.cols());  // the two outputs and their difference
    rows.topRows(2) = c.outputs;
    rows.row(2) = c.outputs.row(1) - c.outputs.row(0);
    char title[160];
    std::snprintf(title, sizeof title, "%s · max |Δ| = %.3g, cosine = %.8f", c.name.c_str(), c.comparison.max_abs_diff,
                  c.comparison.cosine);
    figure.append_below(outputs_panel(
        title, why(c), rows,
        {"word @" + std::to_string(c.comparison.a), "word @" + std::to_string(c.comparison.b), "difference"}, extent,
        width, row_height));
  }
  if (state.view.permutation > 0 && data.check)
    figure.append_below(permutation_figure(&*data.check, width, std::max(row_height * 0.75f, kMinRowHeight)));
  return figure;
}

Result<std::string> dog_csv(const State& state, const EmbeddingTable& table) {
  auto cases = dog_cases(state.model, table);
  if (!cases) return Error{cases.error()};
  std::ostringstream csv;
  csv << "case,encoding,causal,max_abs_diff,cosine\n";
  char line[256];
  for (const DogCase& c : *cases) {
    std::snprintf(line, sizeof line, "%s,%s,%s,%.9g,%.17g\n", csv_field(c.name).c_str(),
                  std::string(to_string(c.encoding)).c_str(), c.causal ? "true" : "false", c.comparison.max_abs_diff,
                  c.comparison.cosine);
    csv << line;
  }
  return csv.str();
}

// The data's figure as large as fits `room`: the attention ran once, every trial is layout only.
plot::Figure dog_figure_fitted(const DogData& data, const State& state, plot::Point room, Overflow overflow) {
  auto measure = [&](float w, float h) { return size_of(dog_figure(data, state, w, h)); };
  const plot::Point cells = fit_area(room, {kMinArea.x, kMinRowHeight}, {kMaxArea.x, 40.0f}, measure, overflow);
  return dog_figure(data, state, cells.x, cells.y);
}


Result<plot::Figure> dog_figure_to_fill(const State& state, const EmbeddingTable& table, plot::Point room,
                                        Overflow overflow) {
  auto data = dog_data(state, table);
  if (!data) return Error{data.error()};
  return dog_figure_fitted(*data, state, room, overflow);
}

}  // namespace poslab

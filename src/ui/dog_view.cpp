#include "ui/dog_view.hpp"

#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/export_data.hpp"
#include "core/workspace.hpp"
#include "plot/heatmap.hpp"

namespace poslab {

namespace {

std::string why(const DogCase& c) {
  if (c.comparison.identical())
    return "identical: the same word with the same neighbours, in another order — attention cannot tell them apart";
  if (c.encoding == EncodingKind::None)
    return "different without positions: the causal mask shows each occurrence a different prefix";
  return "different: the positions make the two occurrences distinguishable";
}

}  // namespace

Result<plot::Figure> dog_figure(const State& state, const EmbeddingTable& table, float width) {
  auto cases = dog_cases(state.model, table);
  if (!cases) return Error{cases.error()};
  plot::Figure figure;
  float extent = 1e-6f;
  for (const DogCase& c : *cases) extent = std::max(extent, c.outputs.cwiseAbs().maxCoeff());
  for (const DogCase& c : *cases) {
    Matrix rows(3, c.outputs.cols());  // the two outputs and their difference
    rows.topRows(2) = c.outputs;
    rows.row(2) = c.outputs.row(1) - c.outputs.row(0);
    plot::HeatmapSpec spec;
    char title[160];
    std::snprintf(title, sizeof title, "%s · max |Δ| = %.3g, cosine = %.8f", c.name.c_str(), c.comparison.max_abs_diff,
                  c.comparison.cosine);
    spec.title = title;
    spec.subtitle = why(c);
    spec.values = &rows;
    spec.row_labels = {"word @" + std::to_string(c.comparison.a), "word @" + std::to_string(c.comparison.b),
                       "difference"};
    spec.row_axis = "";
    spec.col_axis = "output dimension";
    spec.index_cols = true;
    spec.colormap = plot::Colormap::Diverging;
    spec.vmin = -extent;
    spec.vmax = extent;
    spec.value_label = "";
    spec.side = width;
    spec.row_height = 24.0f;
    const plot::Figure part = plot::build_heatmap(spec, plot::figure_text_measure()).figure;
    figure.place(part, {0, figure.height});
    figure.height += part.height;
    figure.width = std::max(figure.width, part.width);
  }
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

void DogView::draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  if (!workspace.has_embeddings()) return;
  const float width = std::max(300.0f, ImGui::GetContentRegionAvail().x - 200.0f);
  if (!(built_for_ == state.model) || built_table_ != workspace.version() || std::abs(built_width_ - width) > 0.5f) {
    auto figure = dog_figure(state, workspace.embeddings(), width);
    error_ = figure ? "" : figure.error();
    if (figure) figure_ = std::move(*figure);
    built_for_ = state.model;
    built_table_ = workspace.version();
    built_width_ = width;
  }
  if (!error_.empty()) {
    ImGui::TextWrapped("%s", error_.c_str());
    return;
  }
  plot::draw_figure(ImGui::GetWindowDrawList(), figure_, ImGui::GetCursorScreenPos(), 1.0f, fonts, textures_);
  ImGui::Dummy(ImVec2(figure_.width, figure_.height));
}

}  // namespace poslab

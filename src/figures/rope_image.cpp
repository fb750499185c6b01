#include "figures/rope_image.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/encodings/rope_image.hpp"
#include "plot/heatmap.hpp"
#include "figures/fit.hpp"

namespace poslab {

namespace {

int clamped_x(const State& s) { return std::clamp(s.view.patch_x, 0, s.view.image_width - 1); }
int clamped_y(const State& s) { return std::clamp(s.view.patch_y, 0, s.view.image_height - 1); }

Matrix scores_for(const State& s, Rope2d kind) {
  return rope_image_scores(s.view.image_width, s.view.image_height, clamped_x(s), clamped_y(s), kind,
                           kRopeImageHeadDim, s.model.base, s.model.seed);
}

}  // namespace

plot::Figure rope_image_figure(const State& state, float side) { return rope_image_panels(state, side).figure; }

RopeImageFigure rope_image_panels(const State& state, float side) {
  const Matrix axial = scores_for(state, Rope2d::Axial), mixed = scores_for(state, Rope2d::Mixed);
  // One shared range for both panels, so that equal colours are equal scores. The scores of one
  // vector with itself are mostly positive, so a sequential map shows their structure best.
  const float lo = std::min(axial.minCoeff(), mixed.minCoeff());
  const float hi = std::max({axial.maxCoeff(), mixed.maxCoeff(), lo + 1e-6f});
  RopeImageFigure out;
  plot::Figure& figure = out.figure;
  for (const auto& [kind, values] : {std::pair{Rope2d::Axial, &axial}, std::pair{Rope2d::Mixed, &mixed}}) {
    plot::HeatmapSpec spec;
    char title[128];
    std::snprintf(title, sizeof title, "%s 2-D RoPE · scores from patch (%d, %d)",
                  kind == Rope2d::Axial ? "Axial" : "Mixed", clamped_x(state), clamped_y(state));
    spec.title = title;
    spec.subtitle = kind == Rope2d::Axial ? "half the pairs turn with x, half with y: f(Δx) + g(Δy)"
                                          : "each pair turns with x·θx + y·θy: diagonal directions too";
    spec.values = values;
    spec.row_axis = "patch y";
    spec.col_axis = "patch x";
    spec.index_rows = true;
    spec.index_cols = true;
    spec.colormap = plot::Colormap::Viridis;
    spec.vmin = lo;
    spec.vmax = hi;
    spec.value_label = "score q·k/√d_h (same content everywhere)";
    spec.value_format = "%.1f";
    spec.side = side;
    const plot::HeatmapFigure part = plot::build_heatmap(spec, plot::figure_text_measure());
    plot::Figure piece = part.figure;
    // Outline the chosen patch.
    const float cw = part.cells.width() / static_cast<float>(part.cols), ch = part.cells.height() / static_cast<float>(part.rows);
    const float x0 = part.cells.x0 + cw * static_cast<float>(clamped_x(state));
    const float y0 = part.cells.y0 + ch * static_cast<float>(clamped_y(state));
    piece.rect({x0, y0, x0 + cw, y0 + ch}, {0, 0, 0, 0}, plot::Color{0.05f, 0.05f, 0.05f, 1}, 2.0f);
    out.grids.push_back({part.cells.x0 + figure.width, part.cells.y0, part.cells.x1 + figure.width, part.cells.y1});
    figure.append_right(piece);
  }
  return out;
}

std::string rope_image_csv(const State& state) {
  std::ostringstream csv;
  csv << "kind,x,y,score\n";
  char line[96];
  for (Rope2d kind : {Rope2d::Axial, Rope2d::Mixed}) {
    const Matrix s = scores_for(state, kind);
    for (int y = 0; y < s.rows(); ++y)
      for (int x = 0; x < s.cols(); ++x) {
        std::snprintf(line, sizeof line, "%s,%d,%d,%.9g\n", std::string(to_string(kind)).c_str(), x, y,
                      static_cast<double>(s(y, x)));
        csv << line;
      }
  }
  return csv.str();
}

RopeImageFigure rope_image_panels_to_fill(const State& state, plot::Point room, Overflow overflow) {
  const float side = std::floor(fit_size(
      room, kMinSide, kMaxSide, [&](float s) { return size_of(rope_image_panels(state, s).figure); }, overflow));
  return rope_image_panels(state, side);
}

}  // namespace poslab

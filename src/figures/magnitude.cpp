#include "figures/magnitude.hpp"


#include <cmath>

#include "core/encodings/additive.hpp"
#include "core/workspace.hpp"
#include "figures/fit.hpp"

namespace poslab {

MagnitudeData magnitude_data(const ModelSettings& s, const Results& r, int positions) {
  const int d = r.problem.width();
  MagnitudeData data;
  const std::pair<const char*, Matrix> tables[] = {
      {"integer p", integer_encoding(positions, d)},
      {"normalized p/N", normalized_encoding(positions, d, positions)},
      {"binary bits of p", binary_encoding(positions, d, s.binary_values)},
      {"sinusoidal", sinusoidal_encoding(positions, d, s.base)},
  };
  for (const auto& [name, table] : tables) {
    std::vector<double> norms;
    for (int p = 0; p < positions; ++p) norms.push_back(table.row(p).cast<double>().norm());
    data.norms.emplace_back(name, std::move(norms));
  }
  // The embeddings without any encoding: the problem's inputs minus the encoding it added.
  auto added = additive_encoding(s, r.problem.queries(), d);
  const Matrix words = added ? Matrix(r.problem.Xq - *added) : r.problem.Xq;  // T × d
  double sum = 0.0;
  int count = 0;
  for (int t = 0; t < r.problem.queries(); ++t) {
    if (r.tokens[static_cast<std::size_t>(t)].padding) continue;
    sum += words.row(t).cast<double>().norm();
    ++count;
  }
  data.embedding_norm = count > 0 ? sum / count : 0.0;
  return data;
}

plot::LinePlotFigure magnitude_figure(const ModelSettings& s, const Results& r, float width, float height) {
  const MagnitudeData data = magnitude_data(s, r, kMagnitudePositions);
  plot::LinePlotSpec spec;
  spec.title = "‖PE(p)‖ against ‖embedding‖ · d = " + std::to_string(r.problem.width());
  spec.subtitle = "integer positions grow as p·√d and swamp the word; normalized ones change with N; "
                  "binary and sinusoidal stay bounded";
  spec.x_label = "position p";
  spec.y_label = "norm (log scale)";
  spec.log_y = true;
  spec.width = width;
  spec.height = height;
  int k = 0;
  for (const auto& [name, norms] : data.norms) {
    plot::Series series{name, {}, norms, plot::series_color(k++), false};
    for (std::size_t p = 0; p < norms.size(); ++p) series.x.push_back(static_cast<double>(p));
    spec.series.push_back(std::move(series));
  }
  char label[64];
  std::snprintf(label, sizeof label, "mean ‖embedding‖ = %.2f", data.embedding_norm);
  spec.references.push_back({data.embedding_norm, label, plot::Color{0.2f, 0.2f, 0.2f, 1}});
  return plot::build_line_plot(spec, plot::figure_text_measure());
}

plot::LinePlotFigure magnitude_figure_to_fill(const ModelSettings& s, const Results& r, plot::Point room,
                                              Overflow overflow) {
  const plot::Point area = fit_area(
      room, kMinArea, kMaxArea, [&](float w, float h) { return size_of(magnitude_figure(s, r, w, h).figure); },
      overflow);
  return magnitude_figure(s, r, area.x, area.y);
}

}  // namespace poslab

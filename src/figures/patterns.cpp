#include "figures/patterns.hpp"


#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/encodings/additive.hpp"
#include "core/export_data.hpp"
#include "core/workspace.hpp"
#include "plot/heatmap.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

namespace {

struct Table {
  std::string name;
  Matrix values;  // positions × width
};

// The tables shown: binary and sinusoid together when either is chosen (or nothing additive),
// otherwise the chosen encoding alone.
std::vector<Table> tables_for(const ModelSettings& s, int width) {
  ModelSettings binary = s, sinusoid = s;
  binary.encoding = EncodingKind::Binary;
  sinusoid.encoding = EncodingKind::Sinusoidal;
  auto table = [&](const ModelSettings& m) {
    auto pe = additive_encoding(m, kPatternPositions, width);
    return pe ? *pe : Matrix(Matrix::Zero(kPatternPositions, width));
  };
  const bool pair = s.encoding == EncodingKind::Binary || s.encoding == EncodingKind::Sinusoidal ||
                    s.encoding == EncodingKind::None || s.encoding == EncodingKind::Rope;
  if (pair)
    return {{std::string("binary ") + (s.binary_values == BinaryValues::ZeroOne ? "{0, 1}" : "{−1, +1}"), table(binary)},
            {"sinusoidal, base " + std::to_string(static_cast<long long>(s.base)), table(sinusoid)}};
  return {{describe_encoding(s), table(s)}};
}

}  // namespace

plot::Figure patterns_figure(const ModelSettings& s, int width, float side) {
  const std::vector<Table> tables = tables_for(s, width);
  // One range and colormap for every table: symmetric about 0 when any value is negative.
  float lo = 0.0f, hi = 0.0f;
  for (const Table& t : tables) {
    lo = std::min(lo, t.values.minCoeff());
    hi = std::max(hi, t.values.maxCoeff());
  }
  const bool signed_values = lo < 0.0f;
  const float extent = std::max(std::abs(lo), std::abs(hi));
  plot::Figure figure;
  float x = 0.0f;
  for (const Table& t : tables) {
    plot::HeatmapSpec spec;
    spec.title = "PE(p, j): " + t.name;
    spec.subtitle = std::to_string(kPatternPositions) + " positions × " + std::to_string(width) + " dimensions";
    spec.values = &t.values;
    spec.row_axis = "position p";
    spec.col_axis = "dimension j";
    spec.index_rows = true;
    spec.index_cols = true;
    spec.colormap = signed_values ? plot::Colormap::Diverging : plot::Colormap::Viridis;
    spec.vmin = signed_values ? -extent : 0.0f;
    spec.vmax = std::max(signed_values ? extent : hi, 1e-6f);
    spec.value_label = "value";
    spec.side = side;
    const plot::Figure top = plot::build_heatmap(spec, plot::figure_text_measure()).figure;

    // Below it, four dimensions against position: the fastest and ever slower ones.
    plot::LinePlotSpec lines;
    lines.title = "Dimensions of " + t.name.substr(0, t.name.find_first_of(" ,"));
    lines.x_label = "position p";
    lines.y_label = "PE(p, j)";
    lines.width = std::max(200.0f, top.width - 190.0f);
    lines.height = 150.0f;
    const bool binary = t.name.rfind("binary", 0) == 0;
    int k = 0;
    for (int j : binary ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0, 4, 8, 16}) {
      if (j >= width) continue;
      plot::Series series{"j = " + std::to_string(j), {}, {}, plot::series_color(k++), false};
      for (int p = 0; p < kPatternPositions; ++p) {
        series.x.push_back(p);
        series.y.push_back(t.values(p, j));
      }
      lines.series.push_back(std::move(series));
    }
    const plot::Figure bottom = plot::build_line_plot(lines, plot::figure_text_measure()).figure;
    figure.place(top, {x, 0.0f});
    figure.place(bottom, {x, top.height});
    x += std::max(top.width, bottom.width);
    figure.height = std::max(figure.height, top.height + bottom.height);
  }
  figure.width = x;
  return figure;
}

std::string patterns_csv(const ModelSettings& s, int width) {
  std::ostringstream csv;
  csv << "encoding,position,dimension,value\n";
  for (const Table& t : tables_for(s, width))
    for (int p = 0; p < kPatternPositions; ++p)
      for (int j = 0; j < width; ++j)
        csv << csv_field(t.name) << ',' << p << ',' << j << ',' << format_float(t.values(p, j)) << '\n';
  return csv.str();
}

plot::Figure patterns_figure_to_fill(const ModelSettings& settings, int width, plot::Point room, Overflow overflow) {
  const float side = std::floor(fit_size(
      room, kMinSide, kMaxSide, [&](float s) { return size_of(patterns_figure(settings, width, s)); }, overflow));
  return patterns_figure(settings, width, side);
}

}  // namespace poslab

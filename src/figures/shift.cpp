#include "figures/shift.hpp"


#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/export_data.hpp"
#include "core/encodings/shift.hpp"
#include "core/workspace.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

plot::Figure shift_figure(const State& state, int width, float plot_width, float plot_height) {
  const int k = state.view.shift_k;
  const auto pairs = shift_check(width, state.model.base, k, kShiftPositions);
  plot::LinePlotSpec spec;
  char title[128];
  std::snprintf(title, sizeof title, "max over p of ‖PE(p+%d) − M_%d·PE(p)‖ per pair · d = %d, base %g", k, k, width,
                state.model.base);
  spec.title = title;
  spec.subtitle = "the same 2×2 matrix moves every position by k: a shift is linear, whatever p is (float rounding only)";
  spec.x_label = "pair i";
  spec.y_label = "residual (log scale)";
  spec.log_y = true;
  spec.width = plot_width;
  spec.height = plot_height;
  plot::Series residual{"residual, p = 0 … " + std::to_string(kShiftPositions - 1), {}, {}, plot::series_color(0)};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    residual.x.push_back(static_cast<double>(i));
    residual.y.push_back(std::max(pairs[i].max_residual, 1e-12));  // an exact 0 on a log axis
  }
  spec.series.push_back(residual);
  plot::Figure figure = plot::build_line_plot(spec, plot::figure_text_measure()).figure;

  // The matrices of a few pairs, as text beside the plot.
  plot::Figure panel;
  const plot::Color ink{0.1f, 0.1f, 0.12f, 1}, muted{0.38f, 0.38f, 0.42f, 1};
  float y = 44.0f;
  panel.text({8, y}, "M_k = [[cos ωk, sin ωk], [−sin ωk, cos ωk]]", 13.0f, ink);
  y += 20.0f;
  panel.text({8, y}, "(sin ω(p+k), cos ω(p+k)) = M_k · (sin ωp, cos ωp)", 12.0f, muted);
  y += 18.0f;
  panel.text({8, y}, "clockwise by ωk in (x, y); RoPE turns counter-clockwise", 12.0f, muted);
  y += 30.0f;
  const int last = static_cast<int>(pairs.size()) - 1;
  for (int i : {0, 1, last / 2, last}) {
    if (i < 0 || i > last) continue;
    const ShiftPair& s = pairs[static_cast<std::size_t>(i)];
    char line[160];
    std::snprintf(line, sizeof line, "pair %d, ω = %.4g:", i, s.omega);
    panel.text({8, y}, line, 13.0f, ink);
    y += 18.0f;
    std::snprintf(line, sizeof line, "[[% .5f, % .5f],", s.matrix[0], s.matrix[1]);
    panel.text({20, y}, line, 12.0f, ink);
    y += 16.0f;
    std::snprintf(line, sizeof line, " [% .5f, % .5f]]", s.matrix[2], s.matrix[3]);
    panel.text({20, y}, line, 12.0f, ink);
    y += 24.0f;
  }
  panel.width = 360.0f;
  panel.height = y;
  plot::Figure both;
  both.width = figure.width + panel.width;
  both.height = std::max(figure.height, panel.height);
  both.place(figure, {0, 0});
  both.place(panel, {figure.width, 0});
  return both;
}

plot::Figure shift_figure_to_fill(const State& state, int width, plot::Point room, Overflow overflow) {
  const plot::Point area = fit_area(
      room, kMinArea, kMaxArea, [&](float w, float h) { return size_of(shift_figure(state, width, w, h)); }, overflow);
  return shift_figure(state, width, area.x, area.y);
}

std::string shift_csv(const State& state, int width) {
  std::ostringstream csv;
  csv << "pair,omega,k,m00,m01,m10,m11,max_residual\n";
  const auto pairs = shift_check(width, state.model.base, state.view.shift_k, kShiftPositions);
  char line[256];
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const ShiftPair& s = pairs[i];
    std::snprintf(line, sizeof line, "%zu,%.17g,%d,%.17g,%.17g,%.17g,%.17g,%.9g\n", i, s.omega, state.view.shift_k,
                  s.matrix[0], s.matrix[1], s.matrix[2], s.matrix[3], s.max_residual);
    csv << line;
  }
  return csv.str();
}

}  // namespace poslab

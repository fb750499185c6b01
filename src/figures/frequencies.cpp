#include "figures/frequencies.hpp"


#include <cmath>
#include <numbers>

#include "core/encodings/rope_scaling.hpp"
#include "core/workspace.hpp"
#include "figures/fit.hpp"

namespace poslab {

namespace {

std::string context_label(const char* what, double length) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %g", what, length);
  return buf;
}

}  // namespace

int frequencies_rotary_dim(const ModelSettings& s, int head_dim) {
  return s.rotary_dim > 0 ? s.rotary_dim : rotary_width(head_dim);
}

plot::LinePlotFigure frequencies_figure(const ModelSettings& s, int rotary_dim, int sequence_length, float width,
                                        float height) {
  const std::vector<double> thetas = rope_thetas(rotary_dim, s.base);
  plot::LinePlotSpec spec;
  char title[128];
  std::snprintf(title, sizeof title, "RoPE wavelength per pair · rotary width %d, base %g", rotary_dim, s.base);
  spec.title = title;
  spec.subtitle = "λᵢ = 2π/θᵢ, θᵢ = base^(−2i/d): a pair whose wavelength exceeds the context never completes a turn";
  spec.x_label = "pair i";
  spec.y_label = "wavelength 2π/θᵢ (tokens)";
  spec.log_y = true;
  spec.width = width;
  spec.height = height;
  plot::Series base{"θᵢ as trained", {}, {}, plot::series_color(0)};
  for (std::size_t i = 0; i < thetas.size(); ++i) {
    base.x.push_back(static_cast<double>(i));
    base.y.push_back(2 * std::numbers::pi / thetas[i]);
  }
  spec.series.push_back(base);
  const double L = s.scaling.original_max_position;
  if (s.scaling.type != RopeScalingType::None) {
    const RopeFrequencies scaled = rope_frequencies(rotary_dim, s.base, s.scaling, sequence_length);
    plot::Series series{std::string(to_string(s.scaling.type)) + " ×" + context_label("", s.scaling.factor).substr(1),
                        {}, {}, plot::series_color(1)};
    for (std::size_t i = 0; i < scaled.thetas.size(); ++i) {
      series.x.push_back(static_cast<double>(i));
      series.y.push_back(2 * std::numbers::pi / scaled.thetas[i]);
    }
    spec.series.push_back(series);
    spec.references.push_back({L, context_label("original context L =", L), plot::series_color(2)});
    spec.references.push_back({L * s.scaling.factor, context_label("scaled context s·L =", L * s.scaling.factor),
                               plot::series_color(3)});
  } else {
    spec.references.push_back({L, context_label("context L =", L), plot::series_color(2)});
  }
  return plot::build_line_plot(spec, plot::figure_text_measure());
}

plot::LinePlotFigure frequencies_figure_to_fill(const ModelSettings& settings, int rotary_dim, int sequence_length,
                                                plot::Point room, Overflow overflow) {
  const plot::Point area = fit_area(
      room, kMinArea, kMaxArea,
      [&](float w, float h) { return size_of(frequencies_figure(settings, rotary_dim, sequence_length, w, h).figure); },
      overflow);
  return frequencies_figure(settings, rotary_dim, sequence_length, area.x, area.y);
}

}  // namespace poslab

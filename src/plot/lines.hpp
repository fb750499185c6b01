#pragma once
// A line plot: series of (x, y) points on linear or logarithmic axes, with ticks, labels, a
// legend and horizontal reference lines.
#include <string>
#include <vector>

#include "plot/figure.hpp"

namespace poslab::plot {

struct Series {
  std::string label;
  std::vector<double> x, y;
  Color color;
  bool markers = true;  // a dot at every point as well as the line
};

struct ReferenceLine {
  double y = 0.0;
  std::string label;
  Color color;
};

struct LinePlotSpec {
  std::string title;
  std::string subtitle;
  std::string x_label, y_label;
  bool log_y = false;
  std::vector<Series> series;
  std::vector<ReferenceLine> references;  // horizontal, dashed
  float width = 640.0f, height = 360.0f;  // the plotting area, logical pixels
};

struct LinePlotFigure {
  Figure figure;
  Box area;  // the plotting area
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;  // data range shown (log10 of y when log_y)
};

LinePlotFigure build_line_plot(const LinePlotSpec& spec, const TextMeasure& measure);

// Colours for series, distinct in print and for common colour blindness (Okabe–Ito).
Color series_color(int index);

}  // namespace poslab::plot

#pragma once
// A line plot: series of (x, y) points on linear or logarithmic axes, with ticks, labels, a
// legend and horizontal reference lines.
#include <string>
#include <vector>

#include "plot/figure.hpp"

namespace poslab::plot {

// How a series' points are joined: a solid line, a dashed one (curves that coincide stay
// visible under each other), or none (dots only; set markers).
enum class Stroke { Solid, Dashed, None };

struct Series {
  std::string label;
  std::vector<double> x, y;
  Color color;
  bool markers = true;  // a dot at every point as well as the line
  Stroke stroke = Stroke::Solid;
  float marker_size = 5.0f;  // the dots' side, logical pixels
};

struct ReferenceLine {
  double y = 0.0;
  std::string label;
  Color color;
};

// A vertical dashed line at x (in data units), e.g. the length a model was trained on.
struct VerticalMark {
  double x = 0.0;
  std::string label;
  Color color;
};

struct LinePlotSpec {
  std::string title;
  std::string subtitle;
  std::string x_label, y_label;
  bool log_y = false;
  // log_x: x on a log10 axis; the ticks are the series' own x values when there are at most 12
  // of them (lengths 32, 64, …), else the powers of ten.
  bool log_x = false;
  bool whole_x = false;  // x counts something (layers): ticks at whole numbers only
  std::vector<Series> series;
  std::vector<ReferenceLine> references;  // horizontal, dashed
  std::vector<VerticalMark> marks;        // vertical, dashed
  float width = 640.0f, height = 360.0f;  // the plotting area, logical pixels
};

struct LinePlotFigure {
  Figure figure;
  Box area;  // the plotting area
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;  // data range shown (log10 of x, y when log_x, log_y)
};

LinePlotFigure build_line_plot(const LinePlotSpec& spec, const TextMeasure& measure);

// Colours for series, distinct in print and for common colour blindness (Okabe–Ito).
Color series_color(int index);

}  // namespace poslab::plot

#pragma once
// A Figure as SVG: rectangles, lines and text stay vector; images (heatmap cells, colorbars) are
// embedded as PNG and drawn without smoothing, so cells keep their edges at any zoom.
#include <string>

#include "plot/figure.hpp"

namespace poslab::plot {

std::string render_svg(const Figure& figure);

}  // namespace poslab::plot

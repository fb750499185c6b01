#pragma once
// Colormaps: viridis (perceptually uniform, sequential) for magnitudes such as weights, and a
// blue–white–red diverging map centred on 0 for signed values such as raw scores.
#include <vector>

#include "plot/figure.hpp"

namespace poslab::plot {

enum class Colormap { Viridis, Diverging };

// t in [0, 1]; values outside are clamped.
Color sample(Colormap map, float t);

// Heatmap cells use 256 colours: t rounds to the nearest of 256 steps. The GPU paints cells
// with the same table, so screen and export agree.
Color lut_color(Colormap map, float t);
std::vector<float> colormap_lut(Colormap map);  // 256 × RGBA, 0 to 1

// The colour of masked cells (a hatch of these two), chosen to appear in neither colormap.
inline constexpr Color kMaskLight{0.90f, 0.90f, 0.90f, 1.0f};
inline constexpr Color kMaskDark{0.62f, 0.62f, 0.62f, 1.0f};

}  // namespace poslab::plot

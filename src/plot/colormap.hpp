#pragma once
// Colormaps: viridis (perceptually uniform, sequential) for magnitudes such as weights, and a
// blue–white–red diverging map centred on 0 for signed values such as raw scores.
#include "plot/figure.hpp"

namespace poslab::plot {

enum class Colormap { Viridis, Diverging };

// t in [0, 1]; values outside are clamped.
Color sample(Colormap map, float t);

// The colour of masked cells (a hatch of these two), chosen to appear in neither colormap.
inline constexpr Color kMaskLight{0.90f, 0.90f, 0.90f, 1.0f};
inline constexpr Color kMaskDark{0.62f, 0.62f, 0.62f, 1.0f};

}  // namespace poslab::plot

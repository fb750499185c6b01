#pragma once
// The rope-image view: on a W × H patch grid, the scores from one patch to every patch under
// axial and mixed 2-D RoPE, side by side.
#include <string>
#include <vector>

#include "core/state.hpp"
#include "plot/draw.hpp"
#include "figures/fit.hpp"

namespace poslab {

inline constexpr int kRopeImageHeadDim = 64;

plot::Figure rope_image_figure(const State& state, float side);

// The figure and, for each panel, the box of its patch cells (to pick a patch with the mouse).
struct RopeImageFigure {
  plot::Figure figure;
  std::vector<plot::Box> grids;
};
RopeImageFigure rope_image_panels(const State& state, float side);
// The same, its panels as large as fit `room` (points).
RopeImageFigure rope_image_panels_to_fill(const State& state, plot::Point room, Overflow overflow = Overflow::Shrink);
std::string rope_image_csv(const State& state);

}  // namespace poslab

#pragma once
// The patterns view: the position × dimension table of an additive encoding, and chosen
// dimensions against position. Binary and sinusoidal encodings are shown side by side with the
// same range and colormap, so the jump of a bit and the smooth turn of a sinusoid compare.
#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "figures/fit.hpp"

namespace poslab {

class Workspace;

inline constexpr int kPatternPositions = 64;

plot::Figure patterns_figure(const ModelSettings& settings, int width, float side);
// The same, its panels as large as fit `room` (points).
plot::Figure patterns_figure_to_fill(const ModelSettings& settings, int width, plot::Point room,
                                     Overflow overflow = Overflow::Shrink);

// header `encoding,position,dimension,value`.
std::string patterns_csv(const ModelSettings& settings, int width);

}  // namespace poslab

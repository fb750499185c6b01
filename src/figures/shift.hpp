#pragma once
// The shift view: for every pair of the sinusoid, how far PE(p+k) is from M_k·PE(p) (float
// rounding only), and the 2 × 2 matrices M_k themselves.
#include <string>

#include "core/state.hpp"
#include "plot/draw.hpp"
#include "figures/fit.hpp"

namespace poslab {

class Workspace;

inline constexpr int kShiftPositions = 512;

plot::Figure shift_figure(const State& state, int width, float plot_width, float plot_height);
// The same, its plotting area as large as fits `room` (points).
plot::Figure shift_figure_to_fill(const State& state, int width, plot::Point room,
                                  Overflow overflow = Overflow::Shrink);
std::string shift_csv(const State& state, int width);

}  // namespace poslab

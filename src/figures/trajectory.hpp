#pragma once
// The trajectory view: one token's embedding plus PE(p) for p = 0 … P − 1, drawn in a PCA plane
// or two chosen dimensions, for the binary and sinusoidal codes side by side (and the chosen
// additive encoding when it is another), with the length of every step below: the binary path
// jumps where many bits flip, the sinusoid moves the same distance at every step.
#include <string>

#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "figures/fit.hpp"

namespace poslab {

class Workspace;

plot::Figure trajectory_figure(const State& state, const Results& results, float side);
// The same, its panels as large as fit `room` (points).
plot::Figure trajectory_figure_to_fill(const State& state, const Results& results, plot::Point room,
                                       Overflow overflow = Overflow::Shrink);
std::string trajectory_csv(const State& state, const Results& results);

}  // namespace poslab

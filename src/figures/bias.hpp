#pragma once
// The bias view: the ALiBi or T5 bias each head adds to the scores, and T5's bucket map.
#include <string>

#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "plot/heatmap.hpp"
#include "figures/fit.hpp"

namespace poslab {

class Workspace;

// The figure for the shown head: its bias matrix, and for T5 the bucket of every (query, key)
// beside it. Empty figure (width 0) when the state has no ALiBi or T5 bias.
plot::Figure bias_figure(const State& state, const Results& results, float side);
// The same, its panels as large as fit `room` (points).
plot::Figure bias_figure_to_fill(const State& state, const Results& results, plot::Point room,
                                 Overflow overflow = Overflow::Shrink);

}  // namespace poslab

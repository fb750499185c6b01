#pragma once
// The attention view: a token × token heatmap of one head's weights or scores, masks hatched.
#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "plot/heatmap.hpp"
#include "figures/fit.hpp"

namespace poslab {

// The figure of the attention view for this state and these results; `side` is the length of
// the cell area in logical pixels. The GUI's export and `poslab export attention` both use
// kExportSide, so they produce the same pixels.
inline constexpr float kExportSide = 560.0f;
plot::HeatmapSpec attention_spec(const State& state, const Results& results, float side);
plot::HeatmapFigure attention_figure(const State& state, const Results& results, float side);
// The same heatmap filling `room` (points) on screen: the cells as large as fit, each at most
// kMaxCellAspect times as wide as tall or as tall as wide, the grid between 120 and 2000 points.
inline constexpr float kMaxCellAspect = 2.0f;
plot::HeatmapSpec attention_spec_to_fill(const State& state, const Results& results, plot::Point room,
                                         Overflow overflow = Overflow::Shrink);
// The size of that figure at its smallest (points).
plot::Point attention_smallest(const State& state, const Results& results);

// The head shown: the state's, within the results' heads.
int clamp_head(const State& state, const Results& results);

// One line that says what was computed: encoding, projections, masks, backend.
std::string describe_computation(const State& state, const Results& results);

}  // namespace poslab

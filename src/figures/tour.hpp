#pragma once
// The tour: seed 000's derivation one step at a time. Each step shows its words (English or
// Japanese), its formulas, its live check with a pass or fail mark computed now, and its plot,
// drawn as one figure that exports as a slide.
#include <optional>
#include <string>
#include <vector>

#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "core/tour/tour.hpp"
#include "plot/draw.hpp"
#include "figures/fit.hpp"

namespace poslab {

class Workspace;

// The whole step as one figure: title, words, formulas, the live check and the plot.
Result<plot::Figure> tour_figure(int step, Language language, const State& state, const Results& results,
                                 const EmbeddingTable& table);
// The same slide on screen, filling `room` (points): the words wrap to the room's width (at
// least kTourMinFillWidth) and the plot takes the height left below them (at least
// kTourMinPlotHeight; a taller slide scrolls).
inline constexpr float kTourMinFillWidth = 480.0f, kTourMinPlotHeight = 240.0f;
Result<plot::Figure> tour_figure_to_fill(int step, Language language, const State& state, const Results& results,
                                         const EmbeddingTable& table, plot::Point room);

// One row per step: step,title,pass,measured (the live checks of `state`'s tour states).
std::string tour_csv(Language language, const State& start, const EmbeddingTable& table);

}  // namespace poslab

#pragma once
// The magnitude view: ‖PE(p)‖ of each additive encoding against position, beside the typical
// ‖embedding‖ of the sentence's tokens — why raw integer positions drown the word's meaning.
#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

class Workspace;

inline constexpr int kMagnitudePositions = 128;

// ‖PE(p)‖ for p = 0 … positions − 1 of the integer, normalized (by `positions`), binary and
// sinusoidal encodings of width d, and the mean ‖embedding‖ of the sentence's real tokens.
struct MagnitudeData {
  std::vector<std::pair<std::string, std::vector<double>>> norms;
  double embedding_norm = 0.0;
};
MagnitudeData magnitude_data(const ModelSettings& settings, const Results& results, int positions);

plot::LinePlotFigure magnitude_figure(const ModelSettings& settings, const Results& results, float width, float height);
// The same, its plotting area as large as fits `room` (points).
plot::LinePlotFigure magnitude_figure_to_fill(const ModelSettings& settings, const Results& results, plot::Point room,
                                              Overflow overflow = Overflow::Shrink);

}  // namespace poslab

#pragma once
// The attention-by-distance view: each head's mean weight against the distance between key and
// query on log–log axes (keys before the query as lines, keys after it as dots), and each head's
// weight on the first token (the attention sink) in its legend. Readable at any length.
#include <string>

#include "core/attention/distance.hpp"
#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

class Workspace;

plot::LinePlotFigure distance_figure(const Results& results, const DistanceProfile& profile, float width, float height);
plot::LinePlotFigure distance_figure_to_fill(const Results& results, const DistanceProfile& profile, plot::Point room,
                                             Overflow overflow = Overflow::Shrink);
// The export: the figure at 640 × 360 and the CSV (columns in README.md).
plot::Figure distance_export_figure(const Results& results);
std::string distance_csv(const Results& results);

}  // namespace poslab

#include "gui/views/patterns_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/encodings/additive.hpp"
#include "core/export_data.hpp"
#include "core/workspace.hpp"
#include "plot/heatmap.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

void PatternsView::draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  const Results* r = workspace.results();
  if (!r) return;
  const int width = r->problem.width();
  const plot::Point room = figure_room(fonts);
  const std::tuple key{state.model, width};
  if (figure_.stale(key, room))
    figure_.request(key, [model = state.model, width, room] { return patterns_figure_to_fill(model, width, room); });
  figure_.show(room, fonts);
}

}  // namespace poslab

#include "gui/views/magnitude_view.hpp"

#include <imgui.h>

#include <cmath>

#include "core/encodings/additive.hpp"
#include "core/workspace.hpp"
#include "figures/fit.hpp"

namespace poslab {

void MagnitudeView::draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  const Results* r = workspace.results();
  if (!r) return;
  const plot::Point room = figure_room(fonts);
  if (figure_.stale(workspace.version(), room))
    figure_.request(workspace.version(), [model = state.model, shared = workspace.results_shared(), room] {
      return magnitude_figure_to_fill(model, *shared, room);
    });
  figure_.show(room, fonts);
}

}  // namespace poslab

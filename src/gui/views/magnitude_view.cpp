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
  if (refit_.now(built_version_ != workspace.version(), room)) {
    figure_.request([model = state.model, shared = workspace.results_shared(), room] {
      return magnitude_figure_to_fill(model, *shared, room);
    });
    built_version_ = workspace.version();
  }
  figure_.refresh();
  draw_figure_note(figure_.busy(), figure_.current().figure.width > 0, figure_.failure());
  show_figure(figure_.current().figure, room, fonts, textures_);
}

}  // namespace poslab

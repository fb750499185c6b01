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
  if (refit_.now(!(built_for_ == state.model) || built_width_ != width, room)) {
    figure_.request([model = state.model, width, room] { return patterns_figure_to_fill(model, width, room); });
    built_for_ = state.model;
    built_width_ = width;
  }
  figure_.refresh();
  draw_figure_note(figure_.busy(), figure_.current().width > 0, figure_.failure());
  show_figure(figure_.current(), room, fonts, textures_);
}

}  // namespace poslab

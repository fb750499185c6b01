#include "gui/views/shift_view.hpp"

#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/export_data.hpp"
#include "core/encodings/shift.hpp"
#include "core/workspace.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

void ShiftView::draw(State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  if (!workspace.has_embeddings()) return;
  const int width = workspace.embeddings().dim();
  ImGui::SetNextItemWidth(200.0f * screen_scale(fonts));
  if (ImGui::InputInt("shift k", &state.view.shift_k)) state.view.shift_k = std::clamp(state.view.shift_k, 0, 100000);
  const plot::Point room = figure_room(fonts);
  if (refit_.now(!(built_for_ == state) || built_width_ != width, room)) {
    figure_.request([state, width, room] { return shift_figure_to_fill(state, width, room); });
    built_for_ = state;
    built_width_ = width;
  }
  figure_.refresh();
  draw_figure_note(figure_.busy(), figure_.current().width > 0, figure_.failure());
  show_figure(figure_.current(), room, fonts, textures_);
}

}  // namespace poslab

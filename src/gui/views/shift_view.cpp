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
  const std::tuple key{state, width};
  if (figure_.stale(key, room))
    figure_.request(key, [state, width, room] { return shift_figure_to_fill(state, width, room); });
  figure_.show(room, fonts);
}

}  // namespace poslab

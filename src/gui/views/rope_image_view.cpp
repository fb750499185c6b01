#include "gui/views/rope_image_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include "core/encodings/rope_image.hpp"
#include "plot/heatmap.hpp"
#include "figures/fit.hpp"

namespace poslab {

void RopeImageView::draw(State& state, const plot::FontSet& fonts) {
  ImGui::PushItemWidth(140.0f * screen_scale(fonts));
  ImGui::SliderInt("patch x", &state.view.patch_x, 0, state.view.image_width - 1);
  ImGui::SameLine();
  ImGui::SliderInt("patch y", &state.view.patch_y, 0, state.view.image_height - 1);
  ImGui::SameLine();
  int grid[2] = {state.view.image_width, state.view.image_height};
  if (ImGui::InputInt2("grid W × H", grid)) {
    state.view.image_width = std::clamp(grid[0], 1, 64);
    state.view.image_height = std::clamp(grid[1], 1, 64);
  }
  ImGui::PopItemWidth();
  const plot::Point room = figure_room(fonts);
  if (figure_.stale(state, room)) figure_.request(state, [state, room] { return rope_image_panels_to_fill(state, room); });
  const ShownFigure shown = figure_.show(room, fonts, "patches");
  for (std::size_t k = 0; k < figure_.current().grids.size(); ++k)
    probe_box("rope image: patches " + std::to_string(k), shown, figure_.current().grids[k]);
  // Click (or drag over) a patch in either panel to pick it.
  if (!shown.hovered) return;
  const plot::Point at = shown.mouse;
  for (const plot::Box& cells : figure_.current().grids) {
    if (!cells.contains(at)) continue;
    const int x = static_cast<int>((at.x - cells.x0) / cells.width() * static_cast<float>(state.view.image_width));
    const int y = static_cast<int>((at.y - cells.y0) / cells.height() * static_cast<float>(state.view.image_height));
    ImGui::SetTooltip("patch (%d, %d) · click to pick it", x, y);
    if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
      state.view.patch_x = std::clamp(x, 0, state.view.image_width - 1);
      state.view.patch_y = std::clamp(y, 0, state.view.image_height - 1);
    }
  }
}

}  // namespace poslab

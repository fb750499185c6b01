#include "gui/views/rope2d_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

#include "core/encodings/encodings.hpp"
#include "base/random.hpp"
#include "core/encodings/rope_plane.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

void Rope2dView::draw(State& state, const plot::FontSet& fonts) {
  ImGui::PushItemWidth(160.0f * screen_scale(fonts));
  ImGui::SliderInt("m (q)", &state.view.rope_m, 0, 200);
  ImGui::SameLine();
  ImGui::SliderInt("n (k)", &state.view.rope_n, 0, 200);
  ImGui::SameLine();
  ImGui::SliderInt("pair i", &state.view.rope_pair, 0, kRope2dHeadDim / 2 - 1);
  ImGui::PopItemWidth();
  const plot::Point room = figure_room(fonts);
  if (figure_.stale(state, room)) figure_.request(state, [state, room] { return rope2d_figure_to_fill(state, room); });
  figure_.show(room, fonts);
}

}  // namespace poslab

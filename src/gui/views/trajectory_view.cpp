#include "gui/views/trajectory_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/encodings/trajectory.hpp"
#include "core/workspace.hpp"
#include "plot/lines.hpp"
#include "figures/fit.hpp"

namespace poslab {

void TrajectoryView::draw(State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  const Results* r = workspace.results();
  if (!r) return;
  ViewSettings& v = state.view;
  ImGui::PushItemWidth(120.0f * screen_scale(fonts));
  int last_token = 0;
  for (int t = 0; t < r->problem.queries(); ++t)
    if (!r->tokens[static_cast<std::size_t>(t)].padding) last_token = t;
  v.trajectory_token = std::clamp(v.trajectory_token, 0, last_token);
  const std::string preview = r->tokens[static_cast<std::size_t>(v.trajectory_token)].text;
  if (ImGui::BeginCombo("token", preview.c_str())) {
    for (int t = 0; t <= last_token; ++t) {
      const std::string label = std::to_string(t) + ": " + r->tokens[static_cast<std::size_t>(t)].text;
      if (ImGui::Selectable(label.c_str(), t == v.trajectory_token)) v.trajectory_token = t;
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::SliderInt("positions", &v.trajectory_positions, 2, 512, "%d", ImGuiSliderFlags_Logarithmic);
  ImGui::SameLine();
  int plane = v.trajectory_plane == TrajectoryPlane::Pca ? 0 : 1;
  if (ImGui::Combo("plane", &plane, "PCA\0two dimensions\0")) v.trajectory_plane = plane == 0 ? TrajectoryPlane::Pca : TrajectoryPlane::Dims;
  if (v.trajectory_plane == TrajectoryPlane::Dims) {
    const int d = r->problem.width();
    ImGui::SameLine();
    ImGui::SliderInt("x dim", &v.trajectory_dim_x, 0, d - 1);
    ImGui::SameLine();
    ImGui::SliderInt("y dim", &v.trajectory_dim_y, 0, d - 1);
  }
  ImGui::PopItemWidth();
  const plot::Point room = figure_room(fonts);
  const std::tuple key{workspace.version(), v};
  if (figure_.stale(key, room))
    figure_.request(key, [state, shared = workspace.results_shared(), room] {
      return trajectory_figure_to_fill(state, *shared, room);
    });
  figure_.show(room, fonts);
}

}  // namespace poslab

#include "gui/views/distance_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/workspace.hpp"

namespace poslab {

void DistanceView::draw(const Workspace& workspace, const plot::FontSet& fonts) {
  const Results* r = workspace.results();
  if (!r) {
    ImGui::TextDisabled("No results yet.");
    return;
  }
  if (r->problem.queries() < 2) {
    ImGui::TextDisabled("One token has no distances: type a longer sentence.");
    return;
  }
  const plot::Point room = figure_room(fonts);
  if (built_.stale(workspace.version(), room))
    built_.request(workspace.version(), [shared = workspace.results_shared(), room] {
      Built b;
      b.profile = attention_by_distance(shared->attention.weights, shared->problem);
      b.figure = distance_figure_to_fill(*shared, b.profile, room);
      return b;
    });
  const ShownFigure shown = built_.show(room, fonts, "distance");
  const DistanceProfile& profile = built_.current().profile;
  const plot::LinePlotFigure& figure = built_.current().figure;
  if (!shown.hovered || profile.heads == 0) return;
  // The distance under the mouse, with every head's exact means before and after the query.
  const plot::Box& a = figure.area;
  if (!a.contains(shown.mouse)) return;
  const double lx = figure.x_min + (shown.mouse.x - a.x0) / a.width() * (figure.x_max - figure.x_min);
  const int distance = std::max(1, static_cast<int>(std::lround(std::pow(10.0, lx))));
  const int before = profile.index_of(-distance), after = profile.index_of(distance);
  ImGui::BeginTooltip();
  ImGui::Text("distance %d", distance);
  for (int h = 0; h < profile.heads; ++h) {
    const auto& mean = profile.mean_weight[static_cast<std::size_t>(h)];
    ImGui::Text("head %d: before %s, after %s · sink %.6g", h,
                before < 0 ? "—" : std::to_string(mean[static_cast<std::size_t>(before)]).c_str(),
                after < 0 ? "—" : std::to_string(mean[static_cast<std::size_t>(after)]).c_str(),
                profile.sink[static_cast<std::size_t>(h)]);
  }
  ImGui::EndTooltip();
}

}  // namespace poslab

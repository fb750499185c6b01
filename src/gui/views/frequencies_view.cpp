#include "gui/views/frequencies_view.hpp"

#include <imgui.h>

#include <cmath>
#include <numbers>

#include "core/encodings/rope_scaling.hpp"
#include "core/workspace.hpp"
#include "figures/fit.hpp"

namespace poslab {

void FrequenciesView::draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  const Results* r = workspace.results();
  if (!r) {
    ImGui::TextDisabled("No results yet.");
    return;
  }
  const int rotary = frequencies_rotary_dim(state.model, r->problem.head_dim());
  if (rotary < 2) {
    ImGui::TextDisabled("The head is too narrow for RoPE pairs.");
    return;
  }
  const plot::Point room = figure_room(fonts);
  const std::tuple key{state.model, rotary};
  if (figure_.stale(key, room))
    figure_.request(key, [model = state.model, rotary, length = r->problem.queries(), room] {
      return frequencies_figure_to_fill(model, rotary, length, room);
    });
  const ShownFigure shown = figure_.show(room, fonts, "frequencies");
  const plot::LinePlotFigure& figure = figure_.current();
  if (!shown.hovered) return;
  // The pair nearest the mouse, with its exact values.
  const plot::Box& a = figure.area;
  if (!a.contains(shown.mouse)) return;
  const double x = figure.x_min + (shown.mouse.x - a.x0) / a.width() * (figure.x_max - figure.x_min);
  const int pair = std::clamp(static_cast<int>(std::lround(x)), 0, rotary / 2 - 1);
  const double theta = rope_thetas(rotary, state.model.base)[static_cast<std::size_t>(pair)];
  const double scaled = rope_frequencies(rotary, state.model.base, state.model.scaling, r->problem.queries())
                            .thetas[static_cast<std::size_t>(pair)];
  ImGui::BeginTooltip();
  ImGui::Text("pair %d", pair);
  ImGui::Text("θ = %.6g rad/token, λ = %.6g tokens", theta, 2 * std::numbers::pi / theta);
  if (state.model.scaling.type != RopeScalingType::None)
    ImGui::Text("scaled: θ' = %.6g, λ' = %.6g (×%.4g)", scaled, 2 * std::numbers::pi / scaled, theta / scaled);
  ImGui::EndTooltip();
}

}  // namespace poslab

#include "gui/views/bias_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/encodings/bias.hpp"
#include "core/workspace.hpp"
#include "figures/fit.hpp"

namespace poslab {

void BiasView::draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  const std::shared_ptr<const Results> r = workspace.results_shared();
  if (!r) return;
  if (r->problem.relative_bias.size() == 0)
    ImGui::TextWrapped("No ALiBi or T5 bias is applied now: below is what each would add (choose one under "
                       "\"Bias and cross-attention\").");
  const plot::Point room = figure_room(fonts);
  const std::tuple key{workspace.version(), state.view};
  if (figure_.stale(key, room)) figure_.request(key, [state, r, room] { return bias_figure_to_fill(state, *r, room); });
  figure_.show(room, fonts);
}

}  // namespace poslab

#include "gui/views/dog_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/export_data.hpp"
#include "core/workspace.hpp"
#include "plot/heatmap.hpp"
#include "figures/fit.hpp"

namespace poslab {

void DogView::draw(State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  if (!workspace.has_embeddings()) return;
  if (ImGui::Button("Permute")) ++state.view.permutation;  // a new shuffle on every click
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Shuffle the sentence's tokens and compare the outputs: without positions they are the\n"
                      "same rows, shuffled the same way");
  if (state.view.permutation > 0) {
    ImGui::SameLine();
    if (ImGui::Button("Sentence order")) state.view.permutation = 0;
  }
  // New settings start a run on a worker thread; the figure shown meanwhile is the last one.
  const bool changed = !(built_for_ == state.model) || built_permutation_ != state.view.permutation ||
                       built_table_ != workspace.version();
  if (changed) {
    built_for_ = state.model;
    built_permutation_ = state.view.permutation;
    built_table_ = workspace.version();
    // dog_data cannot be cut short: a superseded run ends on its own and its result is dropped.
    runs_.request([state, table = workspace.embeddings_shared()](const RunSignals&) { return dog_data(state, *table); });
  }
  if (std::optional<Result<DogData>> result = runs_.take()) {
    error_ = *result ? "" : result->error();
    if (*result) data_ = std::move(**result);
    data_changed_ = true;
  }
  if (runs_.busy()) {
    ImGui::SameLine();
    ImGui::TextDisabled("computing the four cases …");
  }
  const plot::Point room = figure_room(fonts);
  if (data_ && refit_.now(data_changed_, room)) {
    figure_ = dog_figure_fitted(*data_, state, room, Overflow::Shrink);
    data_changed_ = false;
  }
  if (!error_.empty()) {
    ImGui::TextWrapped("%s", error_.c_str());
    return;
  }
  if (data_) show_figure(figure_, room, fonts, textures_);
}

}  // namespace poslab

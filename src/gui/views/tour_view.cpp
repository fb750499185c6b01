#include "gui/views/tour_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/encodings/additive.hpp"
#include "core/encodings/encodings.hpp"
#include "core/export_data.hpp"
#include "core/workspace.hpp"
#include "plot/heatmap.hpp"
#include "plot/lines.hpp"
#include "plot/wrap.hpp"
#include "figures/attention.hpp"
#include "figures/bias.hpp"
#include "figures/dog.hpp"
#include "figures/export.hpp"
#include "figures/fit.hpp"
#include "figures/frequencies.hpp"
#include "figures/magnitude.hpp"
#include "figures/patterns.hpp"
#include "figures/rope2d.hpp"
#include "figures/rope_image.hpp"
#include "figures/shift.hpp"
#include "figures/trajectory.hpp"
#include "gui/flow.hpp"
#include "gui/probe.hpp"

namespace poslab {

void TourView::enter(State& state) {
  if (started_) return;
  started_ = true;
  before_tour_ = state;
  visited_.assign(tour_steps().size(), std::nullopt);
  step_ = 0;
  tour_steps().front().preset(state);
}

void TourView::go_to(int k, State& state) {
  k = std::clamp(k, 0, static_cast<int>(tour_steps().size()) - 1);
  if (!started_ || k == step_) return;
  visited_[static_cast<std::size_t>(step_)] = state;  // the reader's own changes, kept
  step_ = k;
  if (const auto& seen = visited_[static_cast<std::size_t>(k)]) state = *seen;
  else tour_steps()[static_cast<std::size_t>(k)].preset(state);
}

void TourView::leave(State& state) {
  if (!started_) return;
  state = before_tour_;  // the reader's own settings; the tour starts afresh next time
  started_ = false;
}

bool TourView::draw_navigation(State& state, const plot::FontSet& fonts) {
  if (!started_) return false;
  if (ImGui::Button(tour_word(language, 0).c_str())) previous(state);
  probe::item("tour: previous");
  ImGui::SameLine();
  if (ImGui::Button(tour_word(language, 1).c_str())) next(state);
  probe::item("tour: next");
  ImGui::SameLine();
  ImGui::Text("%s %d / %zu", tour_word(language, 2).c_str(), step_ + 1, tour_steps().size());
  const float s = screen_scale(fonts);
  // The language and Leave go on a line of their own when the panel is too narrow for one row.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float rest = 24.0f * s + 2.0f * ImGui::GetFrameHeight() + ImGui::CalcTextSize(tour_word(Language::En, 7).c_str()).x +
                     ImGui::CalcTextSize(tour_word(Language::Ja, 7).c_str()).x + 24.0f * s +
                     ImGui::CalcTextSize(tour_word(language, 6).c_str()).x + 2.0f * style.FramePadding.x +
                     ImGui::CalcTextSize(tour_word(language, 10).c_str()).x + 6.0f * style.ItemSpacing.x;
  if (ImGui::GetContentRegionAvail().x - ImGui::GetItemRectMax().x + ImGui::GetCursorScreenPos().x > rest)
    ImGui::SameLine(0, 24.0f * s);
  int lang = language == Language::Ja ? 1 : 0;
  ImGui::RadioButton(tour_word(Language::En, 7).c_str(), &lang, 0);
  ImGui::SameLine();
  ImGui::RadioButton(tour_word(Language::Ja, 7).c_str(), &lang, 1);
  language = lang == 1 ? Language::Ja : Language::En;
  ImGui::SameLine(0, 24.0f * s);
  const bool leaving = ImGui::Button(tour_word(language, 6).c_str());
  probe::item("tour: leave");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", tour_word(language, 10).c_str());
  probe::value("tour step", std::to_string(step_ + 1));
  if (leaving) leave(state);
  return leaving;
}

void TourView::draw_slide(const State& state, const Workspace& workspace, const plot::FontSet& fonts) {
  if (!started_) return;
  const Results* r = workspace.results();
  if (!r || !workspace.has_embeddings()) return;
  const plot::Point room = figure_room(fonts);
  const std::tuple key{step_, language, workspace.version(), state};
  if (figure_.stale(key, room))
    figure_.request(key, [step = step_, language = language, state, results = workspace.results_shared(),
                          table = workspace.embeddings_shared(), room] {
      return tour_figure_to_fill(step, language, state, *results, *table, room);
    });
  figure_.refresh();
  if (!figure_.failure().empty()) {  // in the slide's place, wrapped: a slide's failure is its content
    flow::text_wrapped(figure_.failure().c_str());
    return;
  }
  // A slide taller than the window scrolls, as a page would; it is never wider than the panel.
  const ShownFigure shown = figure_.show(room, fonts, nullptr, Overflow::ScrollDown);
  probe_layout("tour", figure_.current(), shown);
}

}  // namespace poslab

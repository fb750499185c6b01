#include "gui/views/papers_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "figures/papers.hpp"
#include "gui/flow.hpp"
#include "gui/probe.hpp"

namespace poslab {

namespace {

std::string number_list(const std::vector<double>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < 4; ++i) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v[i]);
    out += (i ? ", " : "") + std::string(text);
  }
  if (v.size() > 4) out += ", … (" + std::to_string(v.size()) + ")";
  return out;
}

}  // namespace

void PapersView::start() {
  started_ = true;
  worker_.request([](const RunSignals&) {
    Run run;
    for (const PaperCheck& c : paper_checks()) {
      if (c.needs == PaperNeeds::Model) continue;
      run.checks.push_back(&c);
      run.results.push_back(c.run());
      run.panels.push_back(c.panels());
    }
    return run;
  });
}

void PapersView::draw_table() {
  const Run& run = *run_;
  int passed = 0;
  for (const PaperCheckResult& r : run.results) passed += r.pass() ? 1 : 0;
  ImGui::Text("%d of %zu checks reproduced", passed, run.results.size());
  probe::value("papers reproduced", std::to_string(passed) + "/" + std::to_string(run.results.size()));
  // The table scrolls within half the tab, so the chosen check's figure stays in view below it.
  constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp |
                                    ImGuiTableFlags_Resizable | ImGuiTableFlags_ScrollY;
  const float height = std::max(8.0f * ImGui::GetTextLineHeightWithSpacing(), 0.45f * ImGui::GetContentRegionAvail().y);
  if (!ImGui::BeginTable("papers", 7, flags, ImVec2(0.0f, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  // The words wrap in the two wide columns; the numbers and the verdict keep their width.
  const float em = ImGui::GetFontSize();
  ImGui::TableSetupColumn("check", ImGuiTableColumnFlags_WidthFixed, 8.5f * em);
  ImGui::TableSetupColumn("paper, where", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("quantity", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("published", ImGuiTableColumnFlags_WidthFixed, 7.0f * em);
  ImGui::TableSetupColumn("PosLab", ImGuiTableColumnFlags_WidthFixed, 7.0f * em);
  ImGui::TableSetupColumn("difference", ImGuiTableColumnFlags_WidthFixed, 7.5f * em);
  ImGui::TableSetupColumn("verdict", ImGuiTableColumnFlags_WidthFixed, 6.0f * em);
  ImGui::TableHeadersRow();
  for (std::size_t k = 0; k < run.results.size(); ++k)
    for (const PaperComparison& row : run.results[k].rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const std::string id(run.checks[k]->id);
      if (ImGui::Selectable((id + "##" + row.quantity).c_str(), chosen_ == static_cast<int>(k), ImGuiSelectableFlags_SpanAllColumns))
        chosen_ = static_cast<int>(k);
      probe::item("papers: " + id);
      ImGui::TableNextColumn();
      // The authors and year, and where; the title on hover.
      ImGui::TextWrapped("%s", (row.paper.substr(0, row.paper.find(", ")) + ", " + row.where).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.paper.c_str());
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", row.quantity.c_str());
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", ((row.relation == Relation::AtMost ? "≤ " : "") + number_list(row.published)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", number_list(row.measured).c_str());
      ImGui::TableNextColumn();
      char difference[32];
      std::snprintf(difference, sizeof difference, "%.3g (±%.3g)", row.largest_difference(), row.tolerance);
      ImGui::TextWrapped("%s", difference);
      ImGui::TableNextColumn();
      if (row.pass()) ImGui::TextColored(ImVec4(0.45f, 0.85f, 0.45f, 1), "reproduced");
      else ImGui::TextColored(ImVec4(1, 0.55f, 0.35f, 1), "differs");
      if (!row.pass() && !row.note.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.note.c_str());
    }
  ImGui::EndTable();
}

void PapersView::draw(const plot::FontSet& fonts) {
  if (!started_) start();
  if (auto done = worker_.take()) {
    run_ = std::move(*done);
    figure_of_ = -1;
  }
  flow::text_wrapped("Published numbers of the papers on positional encodings, recomputed by PosLab from their mathematics "
                     "(docs/PAPERS.md); the checks on a model's own heads run from the command line: poslab papers check --model DIR.");
  const bool running = worker_.busy();
  ImGui::BeginDisabled(running);
  if (ImGui::Button("Check again")) start();
  ImGui::EndDisabled();
  probe::item("papers: check again");
  if (running) {
    ImGui::SameLine();
    ImGui::TextDisabled("checking…");
  }
  probe::value("papers", running ? "checking" : run_ ? "done" : "waiting");
  if (!run_) return;
  draw_table();
  if (run_->checks.empty()) return;
  chosen_ = std::clamp(chosen_, 0, static_cast<int>(run_->checks.size()) - 1);
  if (figure_of_ != chosen_) {
    figure_ = paper_figure(*run_->checks[static_cast<std::size_t>(chosen_)], run_->panels[static_cast<std::size_t>(chosen_)]);
    figure_of_ = chosen_;
  }
  const PaperCheck& check = *run_->checks[static_cast<std::size_t>(chosen_)];
  ImGui::Separator();
  flow::text_wrapped((std::string(check.id) + " — " + std::string(check.what)).c_str());
  probe::value("papers figure", std::string(check.id));
  show_figure(figure_, figure_room(fonts), fonts, textures_);
  probe::item("papers: figure");
}

}  // namespace poslab

#include "gui/views/papers_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "figures/papers.hpp"
#include "figures/train.hpp"
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

void PapersView::start(const std::string& model) {
  started_ = true;
  asked_model_ = model;
  worker_.request([model](const RunSignals& signals) {
    Run run;
    run.model = model;
    const auto& checks = paper_checks();
    const auto progress = signals.progress_sink();
    for (std::size_t k = 0; k < checks.size() && !signals.cancelled(); ++k) {
      const PaperCheck& c = checks[k];
      if (c.needs == PaperNeeds::Model && model.empty()) {
        run.waiting += (run.waiting.empty() ? "" : ", ") + std::string(c.id);
        continue;
      }
      PaperInputs in{shipped_models_folder(), model, true, signals.cancel_flag(), [&](double f) {
                       progress((static_cast<double>(k) + f) / static_cast<double>(checks.size()));
                     }};
      auto outcome = run_paper_check(c, in);
      if (!outcome) {
        run.not_made.push_back(std::string(c.id) + ": " + outcome.error());
        continue;
      }
      run.checks.push_back(&c);
      run.results.push_back(std::move(outcome->result));
      run.panels.push_back(std::move(outcome->panels));
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
      ImGui::TextWrapped("%s", (relation_prefix(row.relation) + number_list(row.published)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", number_list(row.measured).c_str());
      ImGui::TableNextColumn();
      char difference[32];
      std::snprintf(difference, sizeof difference, "%.3g (±%.3g)", row.largest_difference(), row.tolerance);
      ImGui::TextWrapped("%s", difference);
      ImGui::TableNextColumn();
      if (row.pass()) ImGui::TextColored(ImVec4(0.45f, 0.85f, 0.45f, 1), "reproduced");
      else ImGui::TextColored(ImVec4(1, 0.55f, 0.35f, 1), "differs");
      if (!row.note.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.note.c_str());
    }
  ImGui::EndTable();
}

void PapersView::draw(const plot::FontSet& fonts, const std::string& model) {
  // The first time the tab is drawn, and again when another model is opened (its checks are new).
  if (!started_ || model != asked_model_) start(model);
  if (auto done = worker_.take()) {
    run_ = std::move(*done);
    figure_of_ = -1;
  }
  flow::text_wrapped("Published numbers and claims of the papers on positional encodings, recomputed by PosLab: from their "
                     "mathematics, on the tiny models PosLab ships, and on the model open in the Model tab (docs/PAPERS.md).");
  const bool running = worker_.busy();
  ImGui::BeginDisabled(running);
  if (ImGui::Button("Check again")) start(model);
  ImGui::EndDisabled();
  probe::item("papers: check again");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", model.empty() ? "no model open: the model checks wait for one" : ("model: " + model).c_str());
  if (running) {
    ImGui::SameLine();
    ImGui::TextDisabled("checking… %.0f%%", 100.0 * worker_.progress());
  }
  probe::value("papers", running ? "checking" : run_ ? "done" : "waiting");
  if (!run_) return;
  if (!run_->waiting.empty()) ImGui::TextDisabled("not run: %s (open a model in the Model tab)", run_->waiting.c_str());
  for (const std::string& why : run_->not_made) ImGui::TextDisabled("not made: %s", why.c_str());
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

#include "gui/views/training_panel.hpp"

#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "figures/training.hpp"
#include "gui/flow.hpp"
#include "gui/probe.hpp"

namespace poslab {

namespace {

const char* stage_name(int stage) {
  static const char* names[] = {"idle", "sizing", "consent", "running", "shown"};
  return names[stage];
}

}  // namespace

void TrainingPanel::start_sizing(const std::string& sentence) {
  error_.clear();
  auto name = hub::parse_model_name(repo_);
  if (!name) return void(error_ = name.error());
  if (std::string(repo_).find('@') != std::string::npos) return void(error_ = "name the repository alone; its revisions go below");
  auto revisions = hub::parse_revisions(revisions_);
  if (!revisions) return void(error_ = revisions.error());
  request_ = hub::TrainingRequest{*name, *revisions, layer_, sentence};
  stage_ = Stage::Sizing;
  planner_.request([request = request_](const RunSignals& signals) -> Result<std::vector<hub::FetchPlan>> {
    hub::TrainingControl control;
    control.cancel = signals.cancel_flag();
    return hub::plan_revisions(request, hub::HubSettings::from_environment(), control);
  });
}

void TrainingPanel::start_running() {
  stage_ = Stage::Running;
  counters_->reset();
  *revisions_done_ = 0;
  runner_.request([request = request_, plans = plans_, counters = counters_, done = revisions_done_](
                      const RunSignals& signals) -> Result<std::vector<hub::RevisionStats>> {
    hub::TrainingControl control;
    control.cancel = signals.cancel_flag();
    control.download = [counters](const hub::DownloadProgress& p) { counters->set(p); };
    control.waiting = [counters](const std::string& what) { counters->set_waiting(what); };
    control.revision_done = [done](int n, int, const std::string&) { *done = n; };
    return hub::run_revisions(request, plans, hub::HubSettings::from_environment(), control);
  });
}

// The size first; nothing moves until the user agrees.
void TrainingPanel::draw_consent() {
  int cached = 0;
  for (const auto& p : plans_) cached += p.files.empty();
  const std::string size = hub::format_bytes(hub::bytes_to_download(plans_));
  const std::string text = std::to_string(plans_.size()) + " revisions of " + request_.model.repo_id() + ": " +
                           (hub::bytes_to_download(plans_) ? size + " to download" : std::string("nothing to download")) + " (" +
                           std::to_string(cached) + " already in the cache). Each then runs on the sentence.";
  flow::text_wrapped(text.c_str());
  probe::value("training size", size);
  if (ImGui::Button("Download and run")) start_running();
  probe::item("training: consent");
  ImGui::SameLine();
  if (ImGui::Button("Cancel##training-consent")) stage_ = Stage::Idle;
  probe::item("training: decline");
}

// Results of the workers, taken on the UI thread.
void TrainingPanel::collect() {
  if (auto sized = planner_.take()) {
    if (*sized) plans_ = std::move(sized->value()), stage_ = Stage::Consent;
    else error_ = sized->error(), stage_ = Stage::Idle;
  }
  if (auto ran = runner_.take()) {
    if (*ran) {
      rows_ = std::move(ran->value());
      export_figure_ = training_figure(rows_, request_.layer, request_.model.repo_id(), kTrainingPanel);
      figure_width_ = -1.0f;  // laid out for the room when drawn
      stage_ = Stage::Shown;
    } else {
      error_ = ran->error();
      stage_ = rows_.empty() ? Stage::Idle : Stage::Shown;
    }
  }
}

void TrainingPanel::draw(const std::string& repo, const std::string& sentence, const plot::FontSet& fonts) {
  const float em = ImGui::GetFontSize();
  if (repo_[0] == '\0' && !repo.empty()) std::snprintf(repo_, sizeof repo_, "%s", repo.c_str());
  flow::text_disabled_wrapped("How positional heads form during training: each revision of a model on the Hub (Pythia publishes "
                              "step0 … step143000) runs on the sentence; per head of the layer, its scores against the step.");
  ImGui::SetNextItemWidth(18.0f * em);
  ImGui::InputTextWithHint("##training-repo", "ORG/NAME", repo_, sizeof repo_);
  probe::item("training: repo");
  flow::same_line_if_fits(22.0f * em);
  ImGui::SetNextItemWidth(22.0f * em);
  ImGui::InputTextWithHint("##training-revisions", "revisions: step1000,step2000,…", revisions_, sizeof revisions_);
  probe::item("training: revisions");
  flow::same_line_if_fits(10.0f * em);
  ImGui::SetNextItemWidth(6.0f * em);
  if (ImGui::InputInt("layer##training", &layer_)) layer_ = std::max(0, layer_);
  probe::item("training: layer");
  collect();
  const bool working = stage_ == Stage::Sizing || stage_ == Stage::Running;
  ImGui::BeginDisabled(working);
  if (ImGui::Button("Check sizes")) start_sizing(sentence);
  ImGui::EndDisabled();
  probe::item("training: size");
  if (stage_ == Stage::Sizing) {
    ImGui::SameLine();
    ImGui::TextUnformatted("asking the Hub for the revisions' files…");
  }
  if (stage_ == Stage::Consent) draw_consent();
  if (stage_ == Stage::Running) {
    char label[160];
    std::snprintf(label, sizeof label, "revision %d of %zu · %s", revisions_done_->load() + 1, plans_.size(), counters_->text().c_str());
    const float share = (static_cast<float>(revisions_done_->load()) + counters_->fraction()) / static_cast<float>(std::max<std::size_t>(1, plans_.size()));
    ImGui::ProgressBar(share, ImVec2(26.0f * em, 0), label);
    ImGui::SameLine();
    if (ImGui::Button("Cancel##training")) runner_.cancel(), stage_ = rows_.empty() ? Stage::Idle : Stage::Shown, error_ = "cancelled";
    probe::item("training: cancel");
    if (const std::string waiting = counters_->waiting(); !waiting.empty()) flow::text_wrapped(waiting.c_str());  // never a silent wait
  }
  probe::value("training stage", stage_name(static_cast<int>(stage_)));
  probe::value("training error", error_);
  probe::value("training rows", std::to_string(rows_.size()));
  if (!error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.35f, 1));
    flow::text_wrapped(error_.c_str());
    ImGui::PopStyleColor();
  }
  if (!rows_.empty()) {
    if (ImGui::Button("Export PNG + CSV##training")) export_requested_ = true;
    probe::item("training: export");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("As 'poslab export training': FILE-STEM-training.png and .csv (Export's file stem)");
    // Laid out for the panel's width, its text at the size of every other figure's (shrunk to
    // fit, its labels were 7 pixels high): more rows of panels in a narrower room.
    const float width = figure_room(fonts).x;
    if (std::abs(width - figure_width_) > 0.5f) {
      figure_ = training_figure_to_fit(rows_, request_.layer, request_.model.repo_id(), width);
      figure_width_ = width;
    }
    const ShownFigure shown = show_figure(figure_, {width, figure_.height}, fonts, textures_);
    probe::item("training: figure");
    probe::value("training: figure scale", std::to_string(shown.scale / screen_scale(fonts)).substr(0, 4));
  }
}

std::string TrainingPanel::export_csv() const { return hub::training_csv(rows_, request_.layer); }

}  // namespace poslab

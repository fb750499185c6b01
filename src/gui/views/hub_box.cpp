#include "gui/views/hub_box.hpp"

#include <algorithm>
#include <cstdio>

#include <imgui.h>

#include "core/model_resolver.hpp"
#include "hub/resolve.hpp"
#include "gui/flow.hpp"
#include "gui/probe.hpp"

namespace poslab {

std::string DownloadCounters::text() const {
  return hub::format_bytes(done) + " of " + hub::format_bytes(total) + " · " + std::to_string(files_done.load()) + "/" +
         std::to_string(files_total.load()) + " files";
}

void install_window_model_resolver() {
  hub::NameResolution cache_only;
  cache_only.allow_download = false;
  cache_only.not_cached_hint = "download it in the Model tab's model box";
  install_model_resolver([cache_only](std::string_view text) { return hub::resolve_model_argument(text, cache_only); });
}

std::string HubBox::repo() const {
  auto name = hub::parse_model_name(input_);
  return name ? name->repo_id() : std::string();
}

void HubBox::start(const std::string& text) {
  auto name = hub::parse_model_name(text);
  error_.clear();
  message_.clear();
  if (!name) {
    error_ = name.error();
    return;
  }
  counters_->reset();
  auto counters = counters_;
  worker_.request([model = *name, counters](const RunSignals& signals) -> Result<std::filesystem::path> {
    hub::FetchControl control;
    control.cancel = signals.cancel_flag();
    control.progress = [counters](const hub::DownloadProgress& p) { counters->set(p); };
    control.waiting = [counters](const std::string& what) { counters->set_waiting(what); };
    return hub::fetch_model(model, hub::HubSettings::from_environment(), control);
  });
}

// The models in the cache: each ref (main, a tag, stepN) and each snapshot no ref names.
void HubBox::draw_cached(std::string& open) {
  ImGui::SetNextItemWidth(18.0f * ImGui::GetFontSize());
  if (ImGui::BeginCombo("##hub-cached", "models in the cache…")) {
    if (ImGui::IsWindowAppearing()) cached_ = hub::HubCache().models();
    if (cached_.empty()) ImGui::TextDisabled("none in %s", hub::default_cache_root().c_str());
    const hub::HubCache cache;
    for (const auto& m : cached_) {
      for (const auto& [ref, commit] : m.refs) {
        const std::string label = m.name.repo_id() + "@" + ref;
        const auto snapshot = cache.snapshot(m.name, commit);
        std::error_code ec;
        if (!std::filesystem::is_directory(snapshot, ec)) continue;
        if (ImGui::Selectable(label.c_str())) {
          std::snprintf(input_, sizeof input_, "%s", label.c_str());
          open = snapshot.string();  // from the cache as it is: no request
        }
        probe::item("model: cached " + label);
      }
    }
    ImGui::EndCombo();
  }
  probe::item("model: cached");
}

void HubBox::draw(std::string& open) {
  const float em = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(std::clamp(flow::right_edge() - ImGui::GetCursorScreenPos().x - flow::button("Get"), 8.0f * em, 24.0f * em));
  const bool entered = ImGui::InputTextWithHint("##hub-model", "or a model on the Hub: ORG/NAME[@REVISION]", input_, sizeof input_,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
  probe::item("model: hub name");
  ImGui::SameLine();
  ImGui::BeginDisabled(worker_.running());
  if ((ImGui::Button("Get") || entered) && input_[0] != '\0') start(input_);
  ImGui::EndDisabled();
  probe::item("model: hub get");
  flow::same_line_if_fits(18.0f * em);
  draw_cached(open);

  if (worker_.running()) {
    ImGui::ProgressBar(counters_->fraction(), ImVec2(22.0f * em, 0), counters_->text().c_str());
    probe::value("hub progress", counters_->text());
    ImGui::SameLine();
    // A cancelled request delivers nothing (NewestWorker): its message is said here.
    if (ImGui::Button("Cancel##hub")) worker_.cancel(), error_ = "download cancelled; Get again resumes it";
    probe::item("model: hub cancel");
    // A wait with nothing moving is said, not left to look like a hang.
    const std::string waiting = counters_->waiting();
    if (!waiting.empty()) flow::text_wrapped(waiting.c_str());
    probe::value("hub waiting", waiting);
  }
  if (auto finished = worker_.take()) {
    if (*finished) {
      open = finished->value().string();
      message_ = "fetched " + std::string(input_) + " into " + open;
    } else {
      error_ = finished->error();
    }
  }
  probe::value("hub state", worker_.running() ? "downloading" : !error_.empty() ? "error" : !message_.empty() ? "done" : "idle");
  probe::value("hub error", error_);
  if (!error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.35f, 1));
    flow::text_wrapped(error_.c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace poslab

#include "figures/training_run.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/model/model_run.hpp"
#include "base/number_text.hpp"
#include "base/text.hpp"

namespace poslab::hub {

namespace {

// A statistic as CSV text: shortest round-trip decimal; never "nan" or "inf" (empty instead).
std::string cell_number(double v) { return std::isfinite(v) ? number_text(v, 9) : ""; }

ModelName at_revision(ModelName m, const std::string& revision) {
  m.revision = revision;
  return m;
}

}  // namespace

namespace {

// Where the "stepN" field of a revision's name starts (fields split at '-'), or npos.
std::size_t step_field(std::string_view revision) {
  for (std::size_t at = 0; at < revision.size();) {
    const std::size_t end = std::min(revision.find('-', at), revision.size());
    const std::string_view field = revision.substr(at, end - at);
    if (field.size() > 4 && field.substr(0, 4) == "step" &&
        std::all_of(field.begin() + 4, field.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return at;
    at = end + 1;
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<long long> training_step(std::string_view revision) {
  const std::size_t at = step_field(revision);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view digits = revision.substr(at + 4, std::min(revision.find('-', at), revision.size()) - at - 4);
  long long step = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return step;
}

std::string_view training_stage(std::string_view revision) {
  const std::size_t at = step_field(revision);
  return at == std::string_view::npos ? std::string_view{} : revision.substr(0, at);
}

Result<std::vector<std::string>> parse_revisions(std::string_view list) {
  std::vector<std::string> out;
  for (const std::string& item : split_list(list, ',')) {
    if (item.empty()) continue;
    if (auto checked = parse_model_name("a/b@" + item); !checked)
      return Error{"--revisions: \"" + item + "\" is not a branch, tag or commit name"};
    for (const auto& seen : out)
      if (seen == item) return Error{"--revisions names " + item + " twice"};
    out.push_back(item);
  }
  if (out.empty()) return Error{"--revisions names no revision (e.g. --revisions step1000,step2000)"};
  return out;
}

Result<std::vector<FetchPlan>> plan_revisions(const TrainingRequest& request, const HubSettings& settings,
                                              const TrainingControl& control) {
  std::vector<FetchPlan> plans;
  FetchControl fetch;
  fetch.cancel = control.cancel;
  fetch.waiting = control.waiting;
  for (const auto& revision : request.revisions) {
    auto plan = plan_fetch(at_revision(request.model, revision), settings, fetch);
    if (!plan) return Error{plan.error()};
    plans.push_back(std::move(*plan));
  }
  return plans;
}

std::uint64_t bytes_to_download(const std::vector<FetchPlan>& plans) {
  // A blob is downloaded once however many revisions share it (two names of one commit, or a
  // file unchanged between commits): the first revision's fetch puts it in the cache.
  std::set<std::string> counted;
  std::uint64_t total = 0;
  for (const auto& p : plans)
    for (const auto& f : p.files)
      if (!f.have_blob && counted.insert(f.etag).second) total += f.size;
  return total;
}

Result<std::vector<RevisionStats>> run_revisions(const TrainingRequest& request, const std::vector<FetchPlan>& plans,
                                                 const HubSettings& settings, const TrainingControl& control) {
  std::vector<RevisionStats> rows;
  FetchControl fetch;
  fetch.cancel = control.cancel;
  fetch.waiting = control.waiting;
  fetch.progress = control.download;
  const int total = static_cast<int>(plans.size());
  for (const auto& plan : plans) {
    if (control.cancel && control.cancel->load()) return Error{"cancelled"};
    auto folder = run_fetch(plan, settings, fetch);
    if (!folder) return Error{folder.error()};
    auto model = Checkpoint::open(*folder);
    if (!model) return Error{plan.model.text() + ": " + model.error()};
    const int layers = (*model)->config().layers;
    if (request.layer < 0 || request.layer >= layers)
      return Error{std::string(kLayerOutOfRange) + std::to_string(request.layer) + " is out of range: " + plan.model.text() + " has layers 0 to " +
                   std::to_string(layers - 1)};
    ModelRequest run_request;
    run_request.sentence = request.sentence;
    run_request.layer = request.layer;
    run_request.top_k = 1;
    RunControl run_control;
    run_control.cancel = control.cancel;
    auto run = run_model(**model, run_request, run_control);
    if (!run) return Error{plan.model.text() + ": " + run.error()};
    const LayerAttention* layer = run->unchanged.layer(request.layer);
    if (!layer) return Error{plan.model.text() + ": layer " + std::to_string(request.layer) + " was not kept"};
    if (run->unchanged.scored == 0) return Error{"the sentence is one token long: it gives no loss and no attention to compare"};
    rows.push_back({plan.model.revision, training_step(plan.model.revision), plan.commit, run->unchanged.loss, layer->heads});
    if (control.revision_done) control.revision_done(static_cast<int>(rows.size()), total, plan.model.revision);
  }
  return rows;
}

bool steps_known(const std::vector<RevisionStats>& rows) {
  for (const auto& r : rows)
    if (!r.step || training_stage(r.revision) != training_stage(rows.front().revision)) return false;
  return !rows.empty();
}

std::string training_csv(const std::vector<RevisionStats>& rows, int layer) {
  std::string out = "revision,step,layer,head,previous,induction,sink,distance,loss\n";
  for (const auto& r : rows)
    for (std::size_t h = 0; h < r.heads.size(); ++h) {
      const HeadSummary& s = r.heads[h];
      out += r.revision + "," + (r.step ? std::to_string(*r.step) : "") + "," + std::to_string(layer) + "," + std::to_string(h) + "," +
             cell_number(s.previous_token) + "," + cell_number(s.induction) + "," + cell_number(s.sink) + "," + cell_number(s.mean_distance) + "," +
             cell_number(r.loss) + "\n";
    }
  return out;
}

}  // namespace poslab::hub

#pragma once
// Positions across a model's training: the revisions of one repository (Pythia publishes
// step0 … step143000), each run on the same sentence, and per head of one layer the statistics
// the Model tab already shows — previous-token, induction, first-token (sink) weight, mean
// attended distance — with the loss: when each positional head forms.
// Sizes first (plan_revisions: what must be downloaded, before a byte moves), then the revisions
// one after another (run_revisions, on the caller's thread: the GUI calls it on a worker).
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hub/hub_client.hpp"
#include "core/model/forward.hpp"

namespace poslab::hub {

// N for a revision whose name has a field "stepN" between dashes: Pythia's "step1000", OLMo's
// "stage1-step140000-tokens588B"; else none.
std::optional<long long> training_step(std::string_view revision);
// What comes before that field ("stage1-"; "" for Pythia's): OLMo counts the steps of each stage
// from 0 again, so steps compare only within one stage.
std::string_view training_stage(std::string_view revision);

// "step1000,step2000" → the names, in order, each checked as a revision; none twice.
Result<std::vector<std::string>> parse_revisions(std::string_view list);

struct RevisionStats {
  std::string revision;
  std::optional<long long> step;
  std::string commit;
  double loss = 0.0;                 // mean next-token cross-entropy on the sentence, nats
  std::vector<HeadSummary> heads;    // the layer's heads
};

struct TrainingRequest {
  ModelName model;                     // its revision is not used
  std::vector<std::string> revisions;  // in the order given
  int layer = 0;
  std::string sentence;
};

struct TrainingControl {
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const DownloadProgress&)> download;   // bytes of the revision being fetched
  std::function<void(int done, int total, const std::string& revision)> revision_done;
  std::function<void(const std::string& what)> waiting;  // FetchControl::waiting
};

// Each revision's fetch plan (the metadata and HEAD requests only; nothing is written but refs).
Result<std::vector<FetchPlan>> plan_revisions(const TrainingRequest& request, const HubSettings& settings,
                                              const TrainingControl& control = {});
std::uint64_t bytes_to_download(const std::vector<FetchPlan>& plans);

// How run_revisions' error begins when the layer is not one the model has (known only once the
// first revision's config.json is read): the user's mistake, not a failure of the run.
inline constexpr std::string_view kLayerOutOfRange = "--layer ";

// Fetches and runs the planned revisions one after another.
Result<std::vector<RevisionStats>> run_revisions(const TrainingRequest& request, const std::vector<FetchPlan>& plans,
                                                 const HubSettings& settings, const TrainingControl& control = {});

// Whether the x axis is the training step: every revision has one, all of one stage.
bool steps_known(const std::vector<RevisionStats>& rows);

// header `revision,step,layer,head,previous,induction,sink,distance,loss`; a row per revision and
// head, the revisions in the order given; step empty for a revision not named stepN.
std::string training_csv(const std::vector<RevisionStats>& rows, int layer);

}  // namespace poslab::hub

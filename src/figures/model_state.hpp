#pragma once
// A model folder run as a State asks, for the front ends without a window (`poslab export
// --model`, `poslab predict`, the Python module): the folder opened with a message that says what
// to give, the indices checked against the model, the forward pass run.
#include <functional>
#include <optional>
#include <memory>
#include <string_view>

#include "base/result.hpp"
#include "core/attention/attention.hpp"
#include "core/model/checkpoint.hpp"
#include "core/model/model_run.hpp"
#include "core/state.hpp"
#include "figures/views.hpp"

namespace poslab {

// The state's model folder, opened; the error says what to give when there is none, and which
// path could not be opened ("`command`: cannot open the model folder P: it does not exist").
Result<std::shared_ptr<const Checkpoint>> open_state_model(const State& state, std::string_view command);

// A model folder's run for the state: its layer, with the state's changes to the positions; the
// GPU when `backend` is not null (checked against the CPU when the state asks). `progress` gets
// the fraction done (0 … 1), when given. `view`: what the run is for; the sinks and activations
// views read every layer (their summaries, a few values each); none: the predictions alone
// (predict), no layer's scores or weights kept. `scores`: the layer's scores kept beside its
// weights (false: weights alone, half the memory, where nothing reads them: ViewInfo::reads_scores).
Result<ModelRun> run_state_model(const Checkpoint& model, const State& state, int top_k, AttentionBackend* backend,
                                 std::function<void(double)> progress = {}, std::optional<ViewId> view = ViewId::Heads,
                                 bool scores = true);

// --layer and --head against the model's own sizes: past the end is an error naming the range.
Status check_model_indices(const State& state, const TransformerConfig& config);

}  // namespace poslab

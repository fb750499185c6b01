#include "figures/model_state.hpp"

#include <filesystem>
#include <string>
#include <utility>

#include "core/arguments.hpp"
#include "figures/model.hpp"

namespace poslab {

Result<std::shared_ptr<const Checkpoint>> open_state_model(const State& state, std::string_view command) {
  std::error_code ec;
  const std::string& path = state.embeddings_path;
  if (path.empty()) return Error{std::string(command) + " needs a model folder: --model DIR (or ORG/NAME)"};
  // Which path could not be opened (a session's, perhaps written elsewhere), not only that one is needed.
  if (!std::filesystem::exists(path, ec)) return Error{std::string(command) + ": cannot open the model folder " + path + ": it does not exist"};
  if (!std::filesystem::is_directory(path, ec))
    return Error{std::string(command) + " needs a model folder: " + path + " is a file (--model DIR, or ORG/NAME)"};
  return Checkpoint::open(path);
}

Result<ModelRun> run_state_model(const Checkpoint& model, const State& state, int top_k, AttentionBackend* backend,
                                 std::function<void(double)> progress, std::optional<ViewId> view, bool scores) {
  ModelRequest request = model_request(state, model.config());
  request.top_k = top_k;
  request.all_layer_summaries = view == ViewId::Sinks;
  request.top_activations = view == ViewId::Activations ? kActivationsPerLayer : 0;
  request.keep_qk = view == ViewId::PairScores;
  request.keep_layer = view.has_value();
  request.keep_scores = scores;
  RunControl control;
  control.backend = backend;
  control.check_against_cpu = backend && state.check_against_cpu;
  control.progress = std::move(progress);
  return run_model(model, request, control);
}

Status check_model_indices(const State& state, const TransformerConfig& c) {
  if (auto s = check_model_stack(state, c); !s) return s;
  const bool decoder = c.encoder_decoder() && state.model.stack != ModelStack::Encoder;
  if (state.view.layer >= 0)
    if (auto s = check_index("--layer", state.view.layer, decoder ? c.decoder_layers : c.layers,
                             decoder ? "decoder layers in the model" : "layers in the model");
        !s)
      return s;
  if (!state.view.mean_heads)
    if (auto s = check_index("--head", state.view.head, c.heads, "heads in the model"); !s) return s;
  return Ok{};
}

}  // namespace poslab

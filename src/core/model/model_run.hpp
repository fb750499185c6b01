#pragma once
// A model folder run as the State asks: the sentence through the unchanged model and, when the
// state changes the positions (another base or scaling, RoPE off, the other pairing, a shift)
// or shuffles the tokens, through the changed model beside it — so that every view can show
// what the change broke. Also the bridge to the attention view: a layer as pipeline Results.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/attention/pipeline.hpp"
#include "core/model/forward.hpp"
#include "core/state.hpp"

namespace poslab {

struct ModelRequest {
  std::string sentence;
  PositionIntervention intervention;
  std::uint64_t shuffle_seed = 0;  // 0: the tokens in their order
  int layer = 0;                   // the layer whose attention is kept
  ModelStack stack = ModelStack::Encoder;  // of which stack (T5: encoder, decoder or cross)
  std::string target;              // T5: the decoder's text after its start token
  int top_k = 5;
  bool all_layer_summaries = false;  // every layer's heads summarized too (the sinks figure)
  int top_activations = 0;           // each layer's largest residual-stream values (the activations figure)
  bool keep_qk = false;              // the kept layer's queries and keys (the score-by-pair lens)
  // The layer's scores and weights kept (false: predict, which reads only the predictions: at
  // T = 8,192 one layer's matrices of a 32-head model are 17 GB).
  bool keep_layer = true;
  bool keep_scores = true;  // its scores as well as its weights (false: weights alone, the heads figure's)
  Precision precision = Precision::F32;  // the activations' (both passes)
  bool changes() const { return intervention.any() || shuffle_seed != 0; }
  bool operator==(const ModelRequest&) const = default;
};

// Whether the state turns a model's own positions off, and how a switch sets it: by the encoding
// for RoPE, learned and sinusoidal models (none: off), by the bias for ALiBi and T5 models (any
// other bias: off), never for a model without positions. So a PosLab model opened with its own
// config.json (poslab_positions: alibi → bias ALiBi, encoding none) starts unchanged.
bool positions_off(const ModelSettings& m, PositionKind model_positions);
void set_positions_off(ModelSettings& m, PositionKind model_positions, bool off);
// The model as its folder has it: its base, scaling and pairing, its positions on, no shift,
// window, local base, LongRoPE set or ALiBi scale of the user's, no shuffling. What the Model tab's
// "the model's own" button does, and what opening another model does (its settings are its own:
// a model opened after an ALiBi, T5 or no-position model, or after the explorer's encoding
// "none", starts with its positions on).
void reset_model_interventions(State& state, const TransformerConfig& c);
// Copies what reset_model_interventions sets (a model's positions on or off and their changes)
// and the shuffle from `from` to `to`: the settings a model runs with of its own, apart from what
// it shares with the explorer (the sentence, T5's stack and target, the layer, the head).
void copy_model_interventions(const State& from, State& to);


// The state's settings against the model's own config.json: a base or scaling other than the
// config's, --encoding none, --rope-style interleaved, --position-shift and --permute.
ModelRequest model_request(const State& state, const TransformerConfig& config);

struct ModelRun {
  ModelRequest request;
  ForwardResult unchanged;
  std::optional<ForwardResult> changed;  // with the request's changes, when it has any
  // Streaming attention with sink tokens: the loss of its window alone (K = 0), beside the
  // unchanged model's and the streaming one's — what StreamingLLM's Fig. 3 compares.
  std::optional<double> window_alone_loss;
  const ForwardResult& shown() const { return changed ? *changed : unchanged; }
  std::string describe() const;          // "unchanged", or what was changed
  // What the user should know of this run, one sentence each: text the tokenizer left out,
  // positions beyond the length the model was made or trained for (allowed: this is a lab for
  // extrapolation, but said).
  std::vector<std::string> notes;
};

struct RunControl {
  AttentionBackend* backend = nullptr;  // null: the CPU
  bool check_against_cpu = false;
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;  // 0 … 1 over both passes
};

Result<ModelRun> run_model(const Checkpoint& model, const ModelRequest& request, const RunControl& control = {});

// Layer `layer` of a forward pass as the pipeline's Results (tokens, scores, weights, causal
// mask), so that the attention view, its figure and its CSV show a real model unchanged.
Results layer_results(const ForwardResult& forward, int layer, const TransformerConfig& config, const std::string& what);

// What a layer's scores are, as its colour bar says: "q·k/√d_h", "q·k + b(bucket)" (T5),
// "q·k/√256" (Gemma's query_pre_attn_scalar), "50·tanh((…) / 50)" (Gemma 2's soft cap).
std::string score_formula(const TransformerConfig& config, const LayerAttention& layer);

// "Llama · 16 layers · 32 heads (8 key/value) · d_h 64 · RoPE θ 500000, llama3 ×32 (rotate-half)".
std::string describe_model(const TransformerConfig& config);

}  // namespace poslab

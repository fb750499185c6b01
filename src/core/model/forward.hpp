#pragma once
// A real model's forward pass, one code path for every architecture of the table:
//   x = embed(ids) [+ learned positions]
//   per layer: h = norm(x); q, k, v = h·W (+ b); RoPE(q, k); grouped-query causal attention
//              (on the backend: GPU compute shaders or Eigen); x += attn·W_o (+ b);
//              h = norm(x); x += MLP(h)
//   logits = norm(x)·W_lm
// Weights are read from the mapped checkpoint a block of rows at a time and converted to float
// just before they are multiplied, so the model is never held in float32.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/attention/attention.hpp"
#include "core/model/checkpoint.hpp"
#include "core/model_stack.hpp"
#include "core/precision.hpp"

namespace poslab {

// What is changed about a model's positions, against its own config.json. Each field left empty
// keeps the model's own setting.
struct PositionIntervention {
  std::optional<double> rope_theta;    // another RoPE base (a dual-base model's global one)
  std::optional<RopeScaling> scaling;  // another context scaling (replaces the model's)
  bool positions_off = false;          // whatever the model has: RoPE, ALiBi, a learned table
  std::optional<RopeStyle> pairing;    // the other pairing than the checkpoint's: the wrong convention
  int position_shift = 0;              // token t sits at position t + shift
  std::optional<int> rotary_dim;       // rotated dimensions of each head, instead of the config's share
  std::optional<int> window;           // every local layer's sliding window; 0: no window anywhere
  std::optional<double> local_base;    // the local layers' RoPE base (Gemma 3)
  std::optional<LongRopeSet> rope_factors;  // LongRoPE's short or long factors, whatever the length
  std::optional<double> alibi_scale;   // ALiBi's slopes × this
  std::optional<DropPairs> drop_pairs;  // RoPE's lowest or highest pairs stopped
  bool sinks_off = false;              // GPT-OSS: the learned sinks removed (an ordinary softmax)
  std::optional<int> chunk;            // Llama 4: the chunked layers' chunk, N tokens; 0: no chunks
  Streaming streaming;                 // StreamingLLM: every layer sees the first K tokens and the last W
  bool causal_off = false;             // a decoder's causal mask removed: every token sees every other (Haviv et al.'s control)
  bool any() const { return !(*this == PositionIntervention{}); }
  bool operator==(const PositionIntervention&) const = default;
};

// One line for the UI and the CLI, e.g. "RoPE base 10000 · interleaved pairs"; "unchanged".
std::string describe(const PositionIntervention& v);


struct ForwardOptions {
  PositionIntervention intervention;
  std::vector<int> keep_layers;  // layers whose weights, scores and head summaries are kept
  ModelStack stack = ModelStack::Encoder;  // whose layers are kept: T5's encoder, decoder or cross-attention
  bool all_stacks = false;       // T5: the kept layers of all three, for the figure that shows them together
  // T5: the decoder's input, decoder_start_token_id then the target's tokens; empty: the start token.
  std::vector<int> decoder_ids;
  bool all_layers = false;       // keep every layer (tests; small models)
  // Every layer's heads summarized (the sinks figure: the mass on the first token, layer by
  // layer), their weights and scores kept only for keep_layers: memory as for one layer.
  bool summarize_all_layers = false;
  int top_activations = 0;  // the largest this many |x| after each layer of the first stack (0: none)
  bool keep_logits = false;      // the T × V logits (tests; memory grows with T · V)
  bool keep_qk = false;          // the kept layers' queries and keys too (the score-by-pair lens)
  // The kept layers' scores as well as their weights (false: weights alone, half the memory; the
  // heads figure draws weights).
  bool keep_scores = true;
  int top_k = 5;
  Precision precision = Precision::F32;  // BF16: activations rounded as Hugging Face's BF16 forward rounds them
  // Per position t, whether the prediction of ids[t + 1] counts in the loss (empty: every one);
  // a trained task model scores only what its task scores.
  std::vector<std::uint8_t> scored;
  std::string scored_description;       // what `scored` counts, said beside the loss
  AttentionBackend* backend = nullptr;  // null: the CPU
  bool check_against_cpu = false;       // kept layers computed on the CPU too, and compared
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;  // 0 … 1, after each layer
  // Called with each layer's output (the residual stream, T × hidden) of the first stack: the
  // position probe's features. Empty: none.
  std::function<void(int layer, const Matrix& X)> each_layer;
};

// Where a head looks, summed up over the queries.
struct HeadSummary {
  double sink = 0.0;            // mean weight on the first token (the attention sink)
  double mean_distance = 0.0;   // mean over queries of Σ_j w_ij · (i − j)
  double previous_token = 0.0;  // mean over queries i ≥ 1 of w_i,i−1
  // An induction head's signature (Olsson et al. 2022, "[A][B] … [A] → [B]"): for each query i
  // whose token occurred before, at the earlier occurrence j whose preceding tokens match i's
  // longest (the latest among equals), the weight on j + 1, the token that followed it there; the
  // mean over those queries, 0 when no token repeats.
  double induction = 0.0;
};

struct LayerAttention {
  int layer = 0;
  int window = 0;          // keys within this many tokens (itself included) are seen; 0: all
  bool rotated = false;    // RoPE applied to q and k in this layer
  bool position_bias = false;  // ALiBi's or T5's bias added to the scores in this layer
  bool causal = true;      // false: an encoder's, or cross-attention (every key seen)
  bool cross = false;      // T5's cross-attention: rows decoder positions, columns encoder positions
  ModelStack stack = ModelStack::Encoder;  // whose attention this is (T5: encoder, decoder or cross)
  // Whether query i cannot see key j: the future (causal), or outside the window — `window` or
  // more tokens back (causal), more than window / 2 away either side (an encoder's).
  bool masked(int i, int j) const {
    return (causal && j > i) || outside_window(i, j, window, causal) || outside_chunk(i, j, chunk) || outside_stream(i, j, streaming);
  }
  int chunk = 0;           // Llama 4: keys outside the query's chunk of this many tokens are masked; 0: none
  Streaming streaming;     // --streaming K,W: keys between the first K and the last W masked
  bool temperature = false;  // Llama 4's NoPE layer: the queries scaled by a temperature growing with the position
  // GPT-OSS: per head, each query's share of the row that went to the learned sink (the row's
  // weights sum to 1 minus it); empty without sinks.
  std::vector<Eigen::VectorXf> sink_share;
  // DeepSeek: per head, each score's content part (q_nope·k_nope) and position part (q_pe·k_pe),
  // both scaled as the score is, −∞ where masked; their sum is the score. Empty otherwise.
  std::vector<Matrix> score_content, score_position;
  std::vector<Matrix> scores, weights;  // per head, T × T (scores: q·k/√d_h, −inf above the diagonal)
  std::vector<HeadSummary> heads;  // cross-attention: the sink only (no distance between two texts)
  bool summary_only = false;       // summarize_all_layers: `heads` alone, no matrices
  Matrix frequency_usage;  // heads × rotary pairs: mean over positions of ‖q_i‖·‖k_i‖ (RoPE models)
  // ForwardOptions::keep_qk: the heads' q and k as the scores take them (rotated, q × any scale
  // but the backends' 1/√d_h; keys repeated to every query head), heads side by side.
  Matrix queries, keys;
};

struct TokenProbability {
  int id = 0;
  std::string token;
  double p = 0.0;
};

// One token's experts in a mixture's layer: (expert, weight), the router's order (most weight first).
using ExpertChoice = std::vector<std::pair<int, double>>;

// The residual stream's largest values after a layer (Sun et al. 2024's massive activations): the
// top few |x| of the T × hidden output, where they sit, and the median |x| for scale.
struct ResidualPeaks {
  struct Entry {
    int position = 0, dim = 0;
    float value = 0.0f;
  };
  int layer = 0;
  std::vector<Entry> top;  // largest |value| first
  float median_abs = 0.0f;
};

struct ForwardResult {
  std::vector<int> ids;
  std::vector<std::string> tokens;      // the tokenizer's text of each id
  std::vector<int> decoder_ids;         // T5: the decoder's input (start token, then the target's)
  std::vector<std::string> decoder_tokens;
  ModelStack stack = ModelStack::Encoder;  // whose attention `layers` holds
  bool masked_lm = false;               // top[i] predicts position i itself (BERT), not the next token
  bool bidirectional = false;           // the shown stack's self-attention sees every token
  // T5: each stack's learned bias as stored, buckets × heads: the first stack's (the encoder's; a
  // decoder-only model's own) and the decoder's; empty where the model has none.
  Matrix bucket_bias, decoder_bucket_bias;
  // The tokens of the kept layers' rows and columns: the sentence's, the decoder's, or (cross)
  // decoder rows and sentence columns.
  const std::vector<std::string>& query_tokens() const { return stack == ModelStack::Encoder ? tokens : decoder_tokens; }
  const std::vector<std::string>& key_tokens() const { return stack == ModelStack::Decoder ? decoder_tokens : tokens; }
  std::vector<LayerAttention> layers;   // the kept layers, in order (with all_stacks, of each stack)
  // A mixture of experts: per layer (all of them; a dense layer's list is empty), per position,
  // the experts the router chose and their weights. Empty for a dense model.
  std::vector<std::vector<ExpertChoice>> experts;
  std::vector<ResidualPeaks> activations;  // the first stack's layers, with top_activations
  Matrix logits;                        // T × V, only with keep_logits
  // Per position, most probable first: the next token (decoders; T5's decoder positions), or the
  // position's own token (masked LMs); empty for an encoder without its head (BertModel).
  std::vector<std::vector<TokenProbability>> top;
  double loss = 0.0;                    // mean cross-entropy of ids[t+1] given ids[..t], nats (T5: of the target); NaN: none
  double perplexity = 0.0;              // exp(loss)
  int scored = 0;                       // the predictions the loss averages
  std::string scored_description;       // empty: every next token
  Precision precision = Precision::F32;  // the activations' (ForwardOptions::precision)
  std::string backend;                  // which path computed the attention
  double milliseconds = 0.0;
  std::optional<double> max_diff_vs_cpu;
  const LayerAttention* layer(int l) const { return layer(l, stack); }  // of the shown stack
  const LayerAttention* layer(int l, ModelStack s) const;
};

// Runs the model on token ids. Errors: ids out of the vocabulary, positions past GPT-2's table,
// a cancelled run, a backend that fails (then the CPU computes and a note says so).
Result<ForwardResult> run_forward(const Checkpoint& model, const std::vector<int>& ids, const ForwardOptions& options);

// The model's token ids for a sentence (its tokenizer, BOS included), or an error. Text the
// tokenizer has no token for is left out and, with `unknown`, listed there.
Result<std::vector<int>> model_tokens(const Checkpoint& model, const std::string& sentence,
                                      std::vector<std::string>* unknown = nullptr);

// The shuffled-tokens intervention: a seeded shuffle of the ids that keeps a leading special
// token (BOS) in place.
std::vector<int> shuffle_tokens(const Checkpoint& model, const std::vector<int>& ids, std::uint64_t seed);

// The RoPE frequencies a forward pass uses for T tokens in `layer`, after any intervention
// (p-RoPE's pairs that do not rotate at θ = 0; a local layer's base); empty when it does not rotate.
RopeFrequencies model_rope_frequencies(const TransformerConfig& config, const PositionIntervention& v, int tokens, int layer = -1);

// The sliding window of `layer` after the intervention; 0: it sees every earlier token.
int layer_window(const TransformerConfig& c, const PositionIntervention& v, int layer);
// Llama 4: the chunk `layer` attends within after the intervention; 0: none.
int layer_chunk(const TransformerConfig& c, const PositionIntervention& v, int layer);
// Llama 4's NoPE layers: the factor on the query at `position` (attention temperature tuning).
double query_temperature(const TransformerConfig& c, int position);

}  // namespace poslab

#pragma once
// State → Results: tokens → embeddings → additive encoding → projections → RoPE → attention →
// output projection. The attention step runs on whichever backend the caller passes; the
// results have the same type either way.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/attention/attention.hpp"
#include "core/formats/embeddings.hpp"
#include "core/state.hpp"
#include "core/formats/tokenizer.hpp"

namespace poslab {

struct Projections {
  Matrix Wq, Wk, Wv, Wo;  // d × d; a row vector x maps to x·W
};

// Seeded N(0, σ²) matrices, or identity (head h then sees exactly its slice of the dimensions).
Projections make_projections(int d, ProjectionKind kind, double sigma, std::uint64_t seed);

// Grouped-query attention as d × d weights: key/value head g is column block g of W (the first
// kv_heads blocks of width d/heads), and query head h uses block h / (heads / kv_heads). This is
// Hugging Face's repeat_kv applied to the weights, so that every backend runs it unchanged.
Matrix share_key_value_heads(const Matrix& W, int heads, int kv_heads);

struct PipelineInput {
  std::vector<Token> tokens;      // the queries: the sentence's tokens, then any padding tokens
  std::vector<Token> key_tokens;  // the keys: the same tokens, or the cross-attention sentence's
  AttentionProblem problem;       // embeddings (plus any additive encoding), projections, RoPE, masks
};

// The additive encoding of `settings` for T positions and width d (zeros for none and RoPE).
Result<Matrix> additive_encoding(const ModelSettings& settings, int positions, int d);

// The RoPE of `settings` for a head width, T_q queries and T_k keys (disabled unless RoPE).
Result<RopeSpec> rope_spec(const ModelSettings& settings, int heads, int head_dim, int queries, int keys);

// heads × (T_q + T_k − 1) ALiBi or T5 bias by key − query offset; empty for none and Shaw.
Matrix relative_bias(const ModelSettings& settings, int heads, int queries, int keys);

// The memory the attention of T query and T_k key tokens over d-dimensional embeddings takes
// (the d × d projections above all), checked against the budget (base/memory.hpp).
Status check_pipeline_memory(const ModelSettings& settings, int d, int T, int Tk);

// Everything before the attention step. Fails only on settings that do not fit the table, or
// that would take more memory than the budget allows.
Result<PipelineInput> prepare_input(const ModelSettings& settings, const EmbeddingTable& table);

struct Results {
  std::vector<Token> tokens;      // queries
  std::vector<Token> key_tokens;  // keys (the same as tokens unless cross-attention)
  AttentionProblem problem;
  AttentionOutput attention;  // scores, weights, context and output (context · W_o)
  std::string backend;        // which path computed the attention
  std::string backend_reason; // why that path: --backend and the renderer (see backend_choice.hpp)
  std::string backend_brief;  // the same in a few words
  double attention_ms = 0.0;  // wall time of the attention step
  std::optional<double> device_ms;        // GPU time of the attention step, when on the GPU
  std::uint64_t device_run = 0;           // which of the device's runs (its buffers hold the last)
  std::optional<double> cpu_check_ms;     // wall time of the CPU reference, when it ran as a check
  std::optional<double> max_diff_vs_cpu;  // when checked against the CPU reference
  std::vector<std::string> notes;         // things the user should know (a fallback, say)
  std::string description;                // what computed these results, when not the settings (a real model)
  std::string score_formula;              // a real model's scores, e.g. "q·k + b" (T5); empty: q·k/√d_h [+ b]
};

// A note for the user when most of the sentence's words are missing from the table (they get
// random vectors), saying why when the table's rows are token ids; nothing otherwise.
std::optional<std::string> missing_words_note(const std::vector<Token>& tokens, const EmbeddingTable& table);

// A run off the UI thread: it stops between its steps once `cancel` is set (the result is then
// an error that says so), and reports the fraction done.
struct PipelineControl {
  MatricesKept keep;  // the T × T matrices the CPU path keeps (default: all)
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;
  bool cancelled() const { return cancel && cancel->load(); }
  void report(double fraction) const {
    if (progress) progress(fraction);
  }
};
inline constexpr const char* kCancelled = "cancelled: newer settings replaced this run";

// Runs the pipeline. If `backend` fails, the CPU path computes the attention and a note says why.
Result<Results> run_pipeline(const ModelSettings& settings, const EmbeddingTable& table,
                             AttentionBackend& backend, bool check_against_cpu, const PipelineControl& control = {});

// The dog demo: how different are the outputs of two tokens?
struct OutputComparison {
  int a = -1, b = -1;
  double max_abs_diff = 0.0;
  double cosine = 0.0;
  double scale = 0.0;  // the larger max |component| of the two outputs
  // Equal up to float rounding: |Δ| ≤ 1e-5 of the outputs' scale. Bitwise equality is not
  // promised: Eigen sums a row differently depending on its memory alignment.
  bool identical() const { return max_abs_diff <= 1e-5 * scale; }
};
OutputComparison compare_outputs(const Matrix& output, int a, int b);

// The first two positions holding the same token text (case-insensitive), e.g. the two "dog"s.
std::optional<std::pair<int, int>> first_repeated_token(const std::vector<Token>& tokens);

// Why two occurrences' outputs came out identical or different, in a sentence for a reader. When
// every token is the same word and no position is added to the embeddings, every value vector is
// the same, so any weighting of them is too: that, not a missing position or mask, is the reason.
std::string explain_outputs(const OutputComparison& c, const std::vector<Token>& tokens, EncodingKind encoding,
                            bool causal);

}  // namespace poslab

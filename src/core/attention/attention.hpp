#pragma once
// Multi-head scaled dot-product attention: the problem as the pipeline states it (inputs,
// projections, RoPE, masks, biases), the CPU reference (Eigen), and the backend interface the
// GPU path implements too, so that both produce the same AttentionOutput.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/encodings/streaming.hpp"
#include "core/encodings/bias.hpp"
#include "core/encodings/encodings.hpp"
#include "base/matrix.hpp"
#include "base/result.hpp"

namespace poslab {

// A token's position for RoPE: 1-D positions use x only; on a 2-D patch grid, (x, y). A CLS
// token sits at (0, 0), which rotates by nothing.
struct RopePosition {
  int x = 0, y = 0;
};

// RoPE as applied to q and k after the projections, per head. Pair i of head h rotates by the
// angle x·θˣ + y·θʸ (formed in double precision); 1-D RoPE has θʸ = 0.
struct RopeSpec {
  bool enabled = false;
  RopeStyle style = RopeStyle::Interleaved;
  int pairs = 0;                // rotated pairs per head: the rotary width 2·pairs ≤ d_h
  std::vector<double> theta_x;  // heads × pairs, row-major
  std::vector<double> theta_y;  // heads × pairs, row-major
  double scale = 1.0;           // multiplies rotated q and k (YaRN's attention temperature)
  std::vector<RopePosition> query_positions;  // T_q
  std::vector<RopePosition> key_positions;    // T_k
};

// 1-D RoPE with the same θ for every head, at positions 0 … T−1.
RopeSpec rope_1d(const std::vector<double>& thetas, int heads, RopeStyle style, int queries, int keys);

// Rotates the pairs of one head's columns (T × d_h block) as the spec says for head h.
void rotate_head(Eigen::Ref<Matrix> X, const RopeSpec& spec, int head, const std::vector<RopePosition>& positions);

// Which T_q × T_k matrices the CPU path keeps (the context is always whole): at long lengths they
// are most of the memory, and an export of one head's heatmap needs only that head's weights.
// A head not kept gets empty (0 × 0) scores or weights. The GPU path keeps everything.
struct MatricesKept {
  int head = -1;        // −1: every head
  bool scores = true;   // keep the scores of the kept heads
  bool weights = true;  // keep the weights of the kept heads
  bool scores_of(int h) const { return scores && (head < 0 || head == h); }
  bool weights_of(int h) const { return weights && (head < 0 || head == h); }
  bool operator==(const MatricesKept&) const = default;
};

// Whether key j lies outside query i's sliding window of `window` tokens (0: no window): a causal
// window sees the `window` tokens ending at the query (Mistral, Gemma); a bidirectional one is
// centred on it and sees |i − j| ≤ window / 2 (ModernBERT's local_attention).
constexpr bool outside_window(int i, int j, int window, bool causal) {
  if (window <= 0) return false;
  return causal ? i - j >= window : (i > j ? i - j : j - i) > window / 2;
}

// Whether key j lies outside query i's chunk of `chunk` tokens (0: no chunks): Llama 4's chunked
// attention splits the sequence into blocks 0 … C−1, C … 2C−1, … and a query sees its own block
// only. Not a function of j − i, so no relative bias can say it.
constexpr bool outside_chunk(int i, int j, int chunk) { return chunk > 0 && i / chunk != j / chunk; }

// Everything the attention step needs, before the projections.
struct AttentionProblem {
  Matrix Xq;              // T_q × d: inputs of the queries
  Matrix Xkv;             // T_k × d: inputs of the keys and values (Xq itself for self-attention)
  Matrix Wq, Wk, Wv, Wo;  // d × d; a row vector x maps to x·W
  int heads = 1;
  bool causal = false;
  std::vector<std::uint8_t> key_valid;  // T_k; 0 marks a padded key, masked for every query
  RopeSpec rope;
  // heads × (T_q + T_k − 1): the bias of head h for key − query offset o is
  // relative_bias(h, o + T_q − 1). Empty: no bias. ALiBi and T5 are both of this form.
  Matrix relative_bias;
  // Shaw et al. 2018: relative vectors added to the keys and values (CPU path only).
  std::optional<ShawTables> shaw;
  MatricesKept keep;  // what attention_cpu keeps

  int queries() const { return static_cast<int>(Xq.rows()); }
  int keys() const { return static_cast<int>(Xkv.rows()); }
  int width() const { return static_cast<int>(Xq.cols()); }
  int head_dim() const { return width() / heads; }
  // A real model's local layer: keys outside its window are masked too (0: none; outside_window).
  int window = 0;
  int chunk = 0;  // Llama 4's chunked layer: keys outside the query's chunk are masked too (outside_chunk)
  Streaming streaming;  // --streaming K,W: keys between the first K and the last W masked too
  // True where query i may not look at key j (causal future, padding, outside the window, chunk or stream).
  bool masked(int i, int j) const {
    return (causal && j > i) || key_valid[static_cast<std::size_t>(j)] == 0 || outside_window(i, j, window, causal) ||
           outside_chunk(i, j, chunk) || outside_stream(i, j, streaming);
  }
};

// After the projections (and RoPE): Q, K, V side by side per head.
struct AttentionInput {
  Matrix Q, K, V;  // T_q × d, T_k × d, T_k × d; head h owns columns [h·d_h, (h+1)·d_h)
  int heads = 1;
  bool causal = false;
  std::vector<std::uint8_t> key_valid;  // T_k
  Matrix relative_bias;                 // as in AttentionProblem
  std::optional<ShawTables> shaw;       // as in AttentionProblem
  MatricesKept keep;                    // as in AttentionProblem
  float softcap = 0.0f;                 // Gemma 2: scores become c·tanh(s/c) before the bias (CPU only)
  int chunk = 0;                        // Llama 4: a query sees the keys of its own chunk only (CPU only)
  Streaming streaming;                  // StreamingLLM: the first K keys and the last W only (CPU only)
  // GPT-OSS's learned sinks: one logit per head that joins every row's softmax as an extra key
  // with no value; its share is left out of the weights, so a row sums to less than one. Empty:
  // none (CPU only).
  std::vector<float> sinks;
  // BF16 activations (a real model's, ForwardOptions::precision): each row's weights rounded to
  // BF16 before they weigh the values, as PyTorch's attention on BF16 tensors does (CPU only).
  bool bf16 = false;

  int queries() const { return static_cast<int>(Q.rows()); }
  int keys() const { return static_cast<int>(K.rows()); }
  int head_dim() const { return static_cast<int>(Q.cols()) / heads; }
  bool masked(int i, int j) const {
    return (causal && j > i) || key_valid[static_cast<std::size_t>(j)] == 0 || outside_chunk(i, j, chunk) || outside_stream(i, j, streaming);
  }
  // What only the CPU path computes (the shaders know neither soft-capping, chunks, streaming nor sinks).
  bool cpu_only() const { return softcap > 0.0f || chunk > 0 || streaming.on() || !sinks.empty() || shaw.has_value() || bf16; }
  float bias(int h, int i, int j) const {
    return relative_bias.size() == 0 ? 0.0f : relative_bias(h, j - i + queries() - 1);
  }
};

struct AttentionOutput {
  std::vector<Matrix> scores;   // per head, T_q × T_k: q·k/√d_h + bias, −inf where masked
  std::vector<Matrix> weights;  // per head, T_q × T_k: softmax of each row, exactly 0 where masked
  // Learned sinks (AttentionInput::sinks): per head, each query's share that went to the sink
  // (1 − the row's sum). Empty without sinks.
  std::vector<Eigen::VectorXf> sink_share;
  // DeepSeek's latent attention (a real model's layer): per head, the content and position parts
  // of the scores (LayerAttention's). Empty otherwise.
  std::vector<Matrix> score_content, score_position;
  Matrix context;               // T_q × d: per-head A·V, heads side by side
  Matrix output;                // T_q × d: context · W_o
};

// Q = Xq·W_q, K = Xkv·W_k, V = Xkv·W_v, then RoPE on each head of Q and K.
AttentionInput project(const AttentionProblem& problem);

// Scores, weights and context from projected inputs (no output projection).
AttentionOutput attention_cpu(const AttentionInput& input);

// Only the context (T_q × d), keeping no score or weight matrices: the heads run in parallel on
// the cores, each through one reused T_q × T_k buffer. The same numbers as attention_cpu's
// context, for callers that need nothing else (benchmarks, long sequences).
Matrix attention_context_cpu(const AttentionInput& input);

// The whole attention step on the CPU: project, attend, output projection.
AttentionOutput solve_cpu(const AttentionProblem& problem);

// The largest |a − b| over weights, context and output: how far two paths disagree.
double max_abs_difference(const AttentionOutput& a, const AttentionOutput& b);

// The mean over heads of per-head T_q × T_k matrices (weights or scores; a masked score stays −∞
// in every head, so in the mean). `per_head` must not be empty.
Matrix mean_over_heads(const std::vector<Matrix>& per_head);

class AttentionBackend {
 public:
  virtual ~AttentionBackend() = default;
  virtual std::string name() const = 0;
  virtual Result<AttentionOutput> run(const AttentionProblem& problem) = 0;
  // Attention alone on projected inputs (a real model's layer): the context always, and every
  // head's scores and weights when `with_weights`; no output projection (output stays empty).
  virtual Result<AttentionOutput> attend(const AttentionInput& input, bool with_weights) {
    if (with_weights) return attention_cpu(input);
    AttentionOutput out;
    out.context = attention_context_cpu(input);
    return out;
  }
  // Time the device itself spent on the last run (GPU timer queries), when it can tell.
  virtual std::optional<double> last_device_ms() const { return std::nullopt; }
  // A number for the calling thread's last run, where the device keeps a run's buffers (0: it
  // does not say); a later paint from those buffers checks that they still hold that run.
  virtual std::uint64_t last_run() const { return 0; }
  // Whether any thread may call it (it passes the work to a thread of its own), not only the one
  // whose OpenGL context it was made in.
  virtual bool callable_from_any_thread() const { return false; }
};

class CpuBackend final : public AttentionBackend {
 public:
  std::string name() const override { return "CPU (Eigen)"; }
  Result<AttentionOutput> run(const AttentionProblem& problem) override { return solve_cpu(problem); }
};

}  // namespace poslab

#pragma once
// Multi-head scaled dot-product attention: the problem as the pipeline states it (inputs,
// projections, RoPE, masks, biases), the CPU reference (Eigen), and the backend interface the
// GPU path implements too, so that both produce the same AttentionOutput.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/encodings.hpp"
#include "core/matrix.hpp"
#include "core/result.hpp"

namespace poslab {

// RoPE as applied to q and k after the projections, per head.
struct RopeSpec {
  bool enabled = false;
  RopeStyle style = RopeStyle::Interleaved;
  std::vector<double> thetas;  // one per rotated pair; the rotary width is 2·thetas.size() ≤ d_h
  double scale = 1.0;          // multiplies rotated q and k (YaRN's attention temperature)
  std::vector<int> query_positions;  // T_q
  std::vector<int> key_positions;    // T_k
};

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

  int queries() const { return static_cast<int>(Xq.rows()); }
  int keys() const { return static_cast<int>(Xkv.rows()); }
  int width() const { return static_cast<int>(Xq.cols()); }
  int head_dim() const { return width() / heads; }
  // True where query i may not look at key j (causal future or padding).
  bool masked(int i, int j) const {
    return (causal && j > i) || key_valid[static_cast<std::size_t>(j)] == 0;
  }
};

// After the projections (and RoPE): Q, K, V side by side per head.
struct AttentionInput {
  Matrix Q, K, V;  // T_q × d, T_k × d, T_k × d; head h owns columns [h·d_h, (h+1)·d_h)
  int heads = 1;
  bool causal = false;
  std::vector<std::uint8_t> key_valid;  // T_k
  Matrix relative_bias;                 // as in AttentionProblem

  int queries() const { return static_cast<int>(Q.rows()); }
  int keys() const { return static_cast<int>(K.rows()); }
  int head_dim() const { return static_cast<int>(Q.cols()) / heads; }
  bool masked(int i, int j) const {
    return (causal && j > i) || key_valid[static_cast<std::size_t>(j)] == 0;
  }
  float bias(int h, int i, int j) const {
    return relative_bias.size() == 0 ? 0.0f : relative_bias(h, j - i + queries() - 1);
  }
};

struct AttentionOutput {
  std::vector<Matrix> scores;   // per head, T_q × T_k: q·k/√d_h + bias, −inf where masked
  std::vector<Matrix> weights;  // per head, T_q × T_k: softmax of each row, exactly 0 where masked
  Matrix context;               // T_q × d: per-head A·V, heads side by side
  Matrix output;                // T_q × d: context · W_o
};

// Q = Xq·W_q, K = Xkv·W_k, V = Xkv·W_v, then RoPE on each head of Q and K.
AttentionInput project(const AttentionProblem& problem);

// Scores, weights and context from projected inputs (no output projection).
AttentionOutput attention_cpu(const AttentionInput& input);

// The whole attention step on the CPU: project, attend, output projection.
AttentionOutput solve_cpu(const AttentionProblem& problem);

// The largest |a − b| over weights, context and output: how far two paths disagree.
double max_abs_difference(const AttentionOutput& a, const AttentionOutput& b);

class AttentionBackend {
 public:
  virtual ~AttentionBackend() = default;
  virtual std::string name() const = 0;
  virtual Result<AttentionOutput> run(const AttentionProblem& problem) = 0;
  // Time the device itself spent on the last run (GPU timer queries), when it can tell.
  virtual std::optional<double> last_device_ms() const { return std::nullopt; }
};

class CpuBackend final : public AttentionBackend {
 public:
  std::string name() const override { return "CPU (Eigen)"; }
  Result<AttentionOutput> run(const AttentionProblem& problem) override { return solve_cpu(problem); }
};

}  // namespace poslab

#pragma once
// Multi-head scaled dot-product attention: the CPU reference (Eigen) and the interface that the
// GPU path implements too, so that both produce the same AttentionOutput.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/matrix.hpp"
#include "core/result.hpp"

namespace poslab {

struct AttentionInput {
  Matrix Q, K, V;  // T × d each; head h owns columns [h·d_h, (h+1)·d_h)
  int heads = 1;
  bool causal = false;
  std::vector<std::uint8_t> key_valid;  // size T; 0 marks a padded key (masked for every query)

  int tokens() const { return static_cast<int>(Q.rows()); }
  int head_dim() const { return static_cast<int>(Q.cols()) / heads; }
  // True where query i may not look at key j (causal future or padding).
  bool masked(int i, int j) const {
    return (causal && j > i) || key_valid[static_cast<std::size_t>(j)] == 0;
  }
};

struct AttentionOutput {
  std::vector<Matrix> scores;   // per head, T × T: q·k/√d_h, −inf where masked
  std::vector<Matrix> weights;  // per head, T × T: softmax of each row, exactly 0 where masked
  Matrix context;               // T × d: per-head A·V, heads side by side (before W_o)
};

AttentionOutput attention_cpu(const AttentionInput& input);

// The largest |a − b| over weights and context: how far two paths disagree.
double max_abs_difference(const AttentionOutput& a, const AttentionOutput& b);

class AttentionBackend {
 public:
  virtual ~AttentionBackend() = default;
  virtual std::string name() const = 0;
  virtual Result<AttentionOutput> run(const AttentionInput& input) = 0;
  // Time the device itself spent on the last run (GPU timer queries), when it can tell.
  virtual std::optional<double> last_device_ms() const { return std::nullopt; }
};

class CpuBackend final : public AttentionBackend {
 public:
  std::string name() const override { return "CPU (Eigen)"; }
  Result<AttentionOutput> run(const AttentionInput& input) override { return attention_cpu(input); }
};

}  // namespace poslab

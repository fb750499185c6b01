#pragma once
// AdamW (Loshchilov & Hutter: the weight decay acts on the weights, not through the gradient),
// the learning-rate schedule (linear warm-up, then cosine decay) and global-norm clipping.
#include <span>
#include <vector>

#include "core/train/parameters.hpp"

namespace poslab {

struct AdamWSettings {
  double beta1 = 0.9, beta2 = 0.99, eps = 1e-8;
  double weight_decay = 0.1;  // on the tensors whose TensorSpec says decay
};

struct Schedule {
  double peak = 3e-3;       // the rate after warm-up
  int warmup = 100;         // steps 0 … warmup − 1 rise linearly to the peak: peak·(s + 1)/warmup
  int steps = 1000;         // the whole run; the cosine reaches min_ratio·peak at the last step
  double min_ratio = 0.1;
};

// The rate at 0-based step s: warm-up, then min + ½(peak − min)(1 + cos(π·progress)) with progress
// running from 0 at step `warmup` to 1 at step `steps − 1`.
double learning_rate(const Schedule& schedule, int step);

// Scales the gradient so that its global L2 norm is at most max_norm (as PyTorch's
// clip_grad_norm_: by max_norm / (norm + 1e-6) when that is below 1). Returns the norm before.
template <class S>
double clip_gradient(std::span<S> gradient, double max_norm);

template <class S>
class AdamW {
 public:
  AdamW(const std::vector<TensorSpec>& specs, const AdamWSettings& settings);
  // One update with learning rate lr, step counter t = steps() + 1:
  //   m ← β₁m + (1 − β₁)g,  v ← β₂v + (1 − β₂)g²
  //   w ← w − lr·λ·w (decayed tensors only), then w ← w − lr·(m / (1 − β₁ᵗ)) / (√(v / (1 − β₂ᵗ)) + ε)
  void update(std::span<S> weights, std::span<const S> gradient, double lr);
  int steps() const { return t_; }

 private:
  AdamWSettings settings_;
  std::vector<std::uint8_t> decay_;  // per element
  std::vector<S> m_, v_;
  int t_ = 0;
};

}  // namespace poslab

#pragma once
// The whole training model over ops.hpp: position tables made once per length, the activations of
// a group of sequences in one allocation, the forward pass and its backward, and a batch's loss and
// gradient with its sequences split into fixed shards (one per core) whose gradients are summed in
// shard order, so that a seed gives the same bits on one core or two.
//
//   x = E[ids] (+ learned or sinusoidal positions)                                  N × d
//   per layer:  q, k, v = rmsnorm(x)·W_{q,k,v}ᵀ; RoPE on q, k; causal attention with ALiBi's or
//               T5's bias; x += ctx·W_oᵀ
//               h = rmsnorm(x); x += (silu(h·W_gateᵀ) ⊙ h·W_upᵀ)·W_downᵀ
//   logits = rmsnorm(x)·Eᵀ (tied)                                                    N × V
//   loss = mean over the counted predictions of −log softmax(logits)[target]
#include <memory>
#include <vector>

#include "core/encodings/rope_scaling.hpp"
#include "core/train/parameters.hpp"
#include "core/model/tasks.hpp"

namespace poslab {

// What positions add for sequences of T tokens; nothing here is trained.
template <class S>
struct PositionTables {
  int T = 0;
  MatrixOf<S> sinusoid;      // T × d (sinusoidal), else empty
  MatrixOf<S> cos, sin;      // T × rotary pairs (RoPE): cos(t·θᵢ)·scale, sin(t·θᵢ)·scale, else empty
  MatrixOf<S> alibi;         // heads × T: −m_h·o at offset o = i − j (ALiBi), else empty
  std::vector<int> bucket;   // T5's bucket of offset o = i − j (relative position −o), else empty
};

// The RoPE frequencies are θᵢ = base^(−2i/r) for the rotary width r, changed by `scaling` (with
// T as Dynamic NTK's length; YaRN's temperature goes into the tables), then p-RoPE's slowest
// share 1 − fraction of the pairs set to θ = 0: core/model/position_tables.hpp, which the
// real-model forward pass reads too.
template <class S>
PositionTables<S> make_position_tables(const TrainModelConfig& config, int T, const RopeScaling& scaling = {});

template <class S>
struct LayerActivations {
  Tensor<S> x;               // N × d, the residual stream entering the layer
  Tensor<S> xn1, rstd1;      // N × d, N × 1
  Tensor<S> q, k, v;         // N × d (q, k after RoPE)
  Tensor<S> att;             // (n·h·T) × T attention weights
  Tensor<S> ctx;             // N × d
  Tensor<S> x_mid;           // N × d, after the attention's residual add
  Tensor<S> xn2, rstd2;      // N × d, N × 1
  Tensor<S> gate, up, mlp;   // N × F
};

// Everything the backward pass reads, for n sequences of T tokens, and (with `backward`) the
// scratch it writes.
template <class S>
class Activations {
 public:
  Activations(const TrainModelConfig& config, int sequences, int T, bool backward);
  // The bytes such an Activations would take, without taking them (the memory check's estimate).
  static double bytes(const TrainModelConfig& config, int sequences, int T, bool backward);
  Activations(Activations&&) noexcept = default;
  Activations& operator=(Activations&&) noexcept = default;
  Activations(const Activations&) = delete;
  Activations& operator=(const Activations&) = delete;

  int sequences = 0, T = 0;
  std::vector<LayerActivations<S>> layers;
  Tensor<S> bias;                 // heads × T by offset (ALiBi, T5), else empty
  Tensor<S> x_out, xf, rstdf;     // N × d, N × d, N × 1
  Tensor<S> logits, probs;        // N × V
  // Backward scratch: gradients of activations.
  Tensor<S> dx, dxn, dq, dk, dv, dctx;  // N × d
  Tensor<S> dgate, dup, dmlp;           // N × F
  Tensor<S> dlogits;                    // N × V
  Tensor<S> dS;                         // T × T
  Tensor<S> dbias;                      // heads × T (T5)

 private:
  Activations(const TrainModelConfig& config, int sequences, int T, bool backward, bool allocate);
  double elements_ = 0.0;  // planned, padded
  AlignedVector<S> memory_;
};

// Forward over a.sequences sequences of a.T tokens (ids, targets, mask: N entries each); returns
// the sum of −log p(target) over the counted predictions. A learned table needs a.T ≤ its rows,
// and pos must be made for a.T tokens.
template <class S>
double model_forward(const Params<S>& p, const PositionTables<S>& pos, const int* ids, const int* targets,
                     const std::uint8_t* mask, Activations<S>& a);

// The gradient of loss_scale · (that sum), added into grad. Needs the forward's activations.
template <class S>
void model_backward(const Params<S>& p, const PositionTables<S>& pos, const int* ids, const int* targets,
                    const std::uint8_t* mask, S loss_scale, Activations<S>& a, Params<S>& grad);

// A batch's mean loss and its gradient. The batch's sequences are cut into `shards` contiguous
// groups, one OpenMP task each; the shards' gradients and losses are summed in shard order.
template <class S>
class GradientEngine {
 public:
  GradientEngine(const TrainModelConfig& config, int shards);
  // Mean loss over the batch's counted predictions; grad is overwritten with its gradient.
  double loss_and_gradient(const Params<S>& p, const Batch& batch, Params<S>& grad);
  // The same loss without the gradient.
  double loss(const Params<S>& p, const Batch& batch);

 private:
  struct Shard {
    int first = 0, count = 0;
    std::unique_ptr<Activations<S>> acts;
    std::unique_ptr<Params<S>> grad;
    double loss = 0.0;
  };
  void prepare(const Batch& batch, bool backward);
  double run(const Params<S>& p, const Batch& batch, Params<S>* grad);

  TrainModelConfig config_;
  std::vector<Shard> shards_;
  std::unique_ptr<PositionTables<S>> tables_;
};

}  // namespace poslab

#pragma once
// The trainable parameters as one allocation with named tensors over it (llm.c's layout): the
// optimizer and the gradient sums walk one flat array, the forward pass and the saved folder see
// names and shapes. The gradients are a second Params of the same layout, so parameter i and
// gradient i share an index. Templated on the scalar: float for training, double for the tests.
#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "core/train/config.hpp"

namespace poslab {

template <class S>
using MatrixOf = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using MapOf = Eigen::Map<MatrixOf<S>>;
template <class S>
using ConstMapOf = Eigen::Map<const MatrixOf<S>>;

// Memory on 64-byte boundaries. Eigen's vectorised sums start with the elements before the first
// aligned packet, so where a buffer begins changes the order of additions; with every buffer
// aligned the same way, a seed gives the same bits in every run.
template <class T>
struct CacheAligned {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheAligned() = default;
  template <class U>
  CacheAligned(const CacheAligned<U>&) {}  // NOLINT: allocators convert implicitly
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, kAlignment); }
  template <class U>
  bool operator==(const CacheAligned<U>&) const { return true; }
};

template <class S>
using AlignedVector = std::vector<S, CacheAligned<S>>;

// A rows × cols row-major view into memory someone else owns.
template <class S>
struct Tensor {
  S* data = nullptr;
  Eigen::Index rows = 0, cols = 0;
  Eigen::Index size() const { return rows * cols; }
  MapOf<S> m() { return MapOf<S>(data, rows, cols); }
  ConstMapOf<S> m() const { return ConstMapOf<S>(data, rows, cols); }
};

// How a tensor is saved and optimised. Norm weights are vectors ([d] in the file); matrices are
// Hugging Face's [out × in].
struct TensorSpec {
  std::string name;  // Llama's name in model.safetensors
  Eigen::Index rows = 0, cols = 0;
  bool vector = false;  // saved with shape [cols]
  bool decay = false;   // AdamW's weight decay applies (matrices and tables; not norms, not T5's biases)
};

template <class S>
struct LayerParams {
  Tensor<S> attn_norm;        // d
  Tensor<S> q, k, v, o;       // d × d each ([out × in])
  Tensor<S> mlp_norm;         // d
  Tensor<S> gate, up;         // F × d
  Tensor<S> down;             // d × F
};

template <class S>
class Params {
 public:
  explicit Params(const TrainModelConfig& config);  // every value 0
  Params(Params&&) noexcept = default;             // the vector's buffer moves, so the views stay valid
  Params& operator=(Params&&) noexcept = default;
  Params(const Params&) = delete;
  Params& operator=(const Params&) = delete;

  const TrainModelConfig& config() const { return config_; }
  std::span<S> values() { return memory_; }
  std::span<const S> values() const { return memory_; }
  // Every tensor in the order of the allocation, with its name and how it is optimised.
  std::vector<TensorSpec> specs() const { return specs_of(config_); }
  // The same without allocating (to check a file or a memory budget first).
  static std::vector<TensorSpec> specs_of(const TrainModelConfig& config);
  // The tensor named `name` (a TensorSpec name), or null.
  const Tensor<S>* find(const std::string& name) const;
  Tensor<S>* find(const std::string& name);

  Tensor<S> embed;           // V × d, also the output head (tied)
  Tensor<S> positions;       // max_positions × d (learned only)
  Tensor<S> relative_bias;   // buckets × heads (T5 only), shared by every layer
  std::vector<LayerParams<S>> layers;
  Tensor<S> final_norm;      // d

 private:
  // f(spec, tensor) for every tensor in allocation order; Self is Params or const Params.
  template <class Self, class F>
  static void visit(Self& self, F&& f);
  // The tensor playing `role` (in `layer`, or the model's own for -1); Self is Params or const Params.
  template <class Self>
  static auto& tensor(Self& self, TensorRole role, int layer);

  TrainModelConfig config_;
  AlignedVector<S> memory_;
};

// The same values in another scalar type (the tests' double-precision copy of a float model).
template <class To, class From>
Params<To> cast_params(const Params<From>& from) {
  Params<To> to(from.config());
  for (std::size_t i = 0; i < from.values().size(); ++i) to.values()[i] = static_cast<To>(from.values()[i]);
  return to;
}

// Seeded initial weights: N(0, σ²) matrices and tables, σ/√(2·layers) for the projections that
// write into the residual stream (o, down; GPT-2's choice), norms 1, T5's biases 0.
template <class S>
void initialize(Params<S>& p, std::uint64_t seed, double sigma);

}  // namespace poslab

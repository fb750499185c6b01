#pragma once
// The pieces of a transformer layer a checkpoint's forward pass is made of, on float matrices
// (rows are positions), with the weights read from the mapped file as they are needed.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/matrix.hpp"
#include "core/model/checkpoint.hpp"

namespace poslab {

// While one lives (a forward pass with Precision::BF16), the layer ops on this thread round what
// they return to BF16, ties to even, where Hugging Face's forward of a model loaded in BF16 holds
// BF16 tensors: a product (summed in float32), a norm, an activation, a bias added. The forward
// pass rounds its own sums (the residual stream). Scopes nest; other threads are not affected.
class Bf16Activations {
 public:
  explicit Bf16Activations(bool on);
  ~Bf16Activations();
  Bf16Activations(const Bf16Activations&) = delete;
  Bf16Activations& operator=(const Bf16Activations&) = delete;

 private:
  bool previous_;
};
bool bf16_activations();
// Each entry of X rounded to BF16 while Bf16Activations is on (a NaN stays a NaN); nothing otherwise.
void round_activations(Matrix& X);

// Y (T × out) = X (T × in) · W for W stored out × in (Linear: Y = X·Wᵀ) or in × out (Conv1D).
Matrix linear(const Matrix& X, const WeightTensor& W, WeightLayout layout);

// While the returned object lives, linear() keeps the weights that lie in these byte ranges (a
// model's mapped files) packed once (base/gemm.hpp's PackedWeights), the first product with each
// packing it, up to a quarter of the memory budget in all; past that it packs as it goes. When the
// object goes (the model is closed), so do the packs. Checkpoint holds one for its files.
std::shared_ptr<void> keep_packed_weights(std::vector<std::pair<const char*, const char*>> ranges);
// The bytes of weights kept packed now, every model together.
std::uint64_t packed_weight_bytes();
// At most what a model's weights take packed (`bytes` stored as `dtype`, Checkpoint's spelling:
// F16 packs as floats, twice its size), within the quarter of the memory budget packs may take:
// what a run's memory estimate counts for them, made by the run or held from before.
double packed_weights_bound(std::uint64_t bytes, const std::string& dtype);

// Y += b, when the bias is there.
void add_bias(Matrix& Y, const WeightTensor& b);

// RMSNorm (× (offset + w): Gemma's offset is 1) or LayerNorm (× w + b) of each row; X itself when
// there is no norm (w absent). In BF16 (Bf16Activations), Llama's RMSNorm (offset 0) rounds twice,
// the normed x and then its product with w, as Hugging Face's LlamaRMSNorm casts before the
// weight; Gemma's and LayerNorm round once, at the end.
Matrix normalize(const Matrix& X, const WeightTensor& w, const WeightTensor& b, NormKind kind, double eps, double offset = 0.0);

// The same RMSNorm on each head_dim-wide block of each row (Qwen3's and Gemma 3's q and k norms);
// without a weight (w absent) the RMS division alone (Gemma 4's v_norm and router norm).
void normalize_heads(Matrix& X, const WeightTensor& w, int head_dim, double eps, double offset);

void activate(Matrix& X, Activation a);

// c·tanh(x/c) of every entry (Gemma 2's soft-capping); nothing for c = 0.
void soft_cap(Matrix& X, double c);

// A float rounded to the nearest BF16 or F16 value (ties to even): a constant PyTorch forms in the
// weights' dtype.
float round_to_bf16(float x);
float round_to_f16(float x);

// Hugging Face's repeat_kv: key/value head g serves query heads g·n … g·n + n − 1.
Matrix repeat_kv(const Matrix& X, int kv_heads, int heads, int head_dim);

}  // namespace poslab

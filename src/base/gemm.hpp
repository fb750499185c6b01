#pragma once
// Matrix products on the instruction set of the CPU that runs them. The products are compiled
// once per instruction set (src/base/kernels/gemm_isa.cpp: x86-64's baseline, AVX2 + FMA,
// AVX-512) and the best one this CPU has is chosen when PosLab starts (cpuid), so one binary —
// the Debian package's — runs on any x86-64 and uses what it finds. POSLAB_ISA=baseline|avx2|avx512
// chooses a lower one (a CPU without the one named keeps its best, and says so); the numbers
// differ between them only by the rounding of a different summation order.
#include <cstdint>
#include <memory>
#include <string_view>

#include "base/result.hpp"

namespace poslab {

enum class Isa { Baseline, Avx2, Avx512 };

std::string_view isa_name(Isa isa);  // "baseline", "avx2", "avx512": POSLAB_ISA's spellings
std::string_view isa_words(Isa isa); // "x86-64 (SSE2)", "AVX2 + FMA", "AVX-512": for `poslab info`
Result<Isa> parse_isa(std::string_view name);

// The best instruction set this CPU has, read once (cpuid).
Isa cpu_isa();
// The one the products use: POSLAB_ISA's when the CPU has it, else the CPU's best.
Isa active_isa();
// Chooses the products' instruction set (tests force each path the machine has); an error when
// this CPU lacks it. Not to be called while a product runs on another thread.
Status use_isa(Isa isa);

// Whether C receives the product (C = …) or adds it (C += …).
enum class Into { Set, Add };

// C (m × n) = A (m × k) · Bᵀ, B being n × k. Row-major, each with its leading dimension (the
// elements from one row to the next). Runs on the calling thread (inside a parallel loop), or
// on OpenMP's threads when called outside one.
void gemm_abt(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, Into into = Into::Set);
// C (m × n) = A (m × k) · B, B being k × n.
void gemm_ab(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, Into into = Into::Set);
// C (m × n) = Aᵀ · B, A being k × m and B k × n (a weight's gradient: dYᵀ·X).
void gemm_atb(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, Into into = Into::Set);

// How a weight matrix's elements are stored in its file (little-endian).
enum class StoredType { F32, F16, BF16 };

// What X holds in a product with weights. BF16: values that are BF16 already (a forward pass with
// BF16 activations). With BF16 weights, on a CPU with AMX (Intel's tile unit, Sapphire Rapids and
// later) while the AVX-512 set is active, those are multiplied there (TDPBF16PS: BF16 pairs, exact
// products summed in float32, subnormals flushed to zero), an order of magnitude more products a
// cycle than float FMAs. Elsewhere, and for F32 and F16 weights, as floats; the sums differ only by
// their order. (AVX-512 BF16's vdpbf16ps, tried first, ran no faster than the float FMAs here:
// bench/RESULTS.md.)
enum class Inputs { F32, BF16 };
// Whether BF16 activations times BF16 weights go on the tile unit now (this CPU, Linux's permission
// and the active set).
bool bf16_tile_products();

// Y (m × n, leading dimension ldy) = X (m × k) · Wᵀ, with W read in the precision it is stored in:
// n rows of k elements `stride` apart (a Linear's out × in), or, `transposed`, k rows of n (a
// Conv1D's in × out). The weights are packed a block at a time as stored (BF16 stays 16 bits) and
// widened in the product's inner loop: no float copy of them is made. A thread computes each
// element of Y alone, in one fixed order, so the numbers do not depend on how many threads run.
// Runs on OpenMP's threads, or on the calling thread inside a parallel region.
void gemm_weights(int m, int n, int k, const float* X, int ldx, const char* W, StoredType type, bool transposed,
                  std::int64_t stride, float* Y, int ldy, Inputs x = Inputs::F32);

// W packed whole, once, as gemm_weights packs it block by block (BF16 stays 16 bits; F16 becomes
// floats), for the instruction set active when it was packed: a product from it skips the packing,
// which is a third of a 64-token forward pass. As large as W in BF16 or F32 (twice it for F16).
class PackedWeights {
 public:
  // x: the activations it will multiply (for the tile unit W is packed in BF16 pairs).
  static PackedWeights pack(int n, int k, const char* W, StoredType type, bool transposed, std::int64_t stride,
                            Inputs x = Inputs::F32);
  // What pack() would take for such a W, on the active set, before taking it.
  static std::uint64_t bytes_for(int n, int k, StoredType type, Inputs x = Inputs::F32);
  Isa isa() const { return isa_; }
  std::uint64_t bytes() const { return count_ * sizeof(std::uint32_t); }
  // Whether this is W as gemm_weights would read it now (the same shape and type, on the active set,
  // for the tile unit or not as these activations would go).
  bool fits(int n, int k, StoredType type, Inputs x = Inputs::F32) const;
  // Y (m × n) = X (m × k) · Wᵀ: the same numbers as gemm_weights on the W it was packed from.
  void multiply(int m, const float* X, int ldx, float* Y, int ldy) const;

 private:
  Isa isa_ = Isa::Baseline;
  StoredType type_ = StoredType::F32;
  bool tiles_ = false;
  int n_ = 0, k_ = 0;
  std::unique_ptr<std::uint32_t[]> words_;  // not zeroed first: the packing writes every word
  std::size_t count_ = 0;
};

// n little-endian BF16 or F16 values at `src` (any alignment) as floats, exactly: a model's weights
// as the products read them. F16 goes through the processor's F16C where the set has it, so a
// build for any x86-64 converts as fast as one for AVX2.
void widen_bf16(const char* src, std::int64_t n, float* dst);
void widen_f16(const char* src, std::int64_t n, float* dst);

// n floats rounded in place to the nearest BF16 value, ties to even, as PyTorch's float → bfloat16
// does; a NaN stays a NaN (the rounding's carry could otherwise make it an infinity or a zero).
void round_to_bf16(float* x, std::int64_t n);

// One row of n attention scores in place as its softmax weights, beside a learned sink that takes
// its share without a value (GPT-OSS; −∞ for none). A key at −∞ (masked) gets exactly 0; a row with
// every key masked and no sink gets no weights at all rather than NaN. Returns the sink's share.
float softmax_row(float* row, int n, float sink);

}  // namespace poslab

// The matrix products of base/gemm.hpp for one instruction set. CMakeLists.txt compiles this file
// once per set (poslab_gemm_baseline, _avx2, _avx512), each with its own flags, and defines
// POSLAB_KERNEL_NS (the set's namespace) and POSLAB_EIGEN_NS (a name for Eigen). Eigen is renamed
// in each copy because its templates are instantiated in every file that uses them and the linker
// keeps one instantiation of each: without a name of their own, the AVX-512 copy's code could be
// what the baseline copy calls, on a CPU without AVX-512. This file includes no header of ours that
// includes Eigen, so nothing here meets the Eigen the rest of PosLab uses.
#define Eigen POSLAB_EIGEN_NS
#include <Eigen/Core>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "base/half.hpp"  // no Eigen in it

namespace poslab::kernels::POSLAB_KERNEL_NS {

namespace {

using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Strided = Eigen::OuterStride<>;
using ConstView = Eigen::Map<const RowMajorMatrix, Eigen::Unaligned, Strided>;
using View = Eigen::Map<RowMajorMatrix, Eigen::Unaligned, Strided>;

}  // namespace

// `add`: C += the product (base/gemm.hpp's Into::Add), else C = it.
template <class Product>
void store(View c, const Product& product, bool add) {
  if (add) c.noalias() += product;
  else c.noalias() = product;
}

void gemm_abt(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, bool add) {
  store(View(C, m, n, Strided(ldc)), ConstView(A, m, k, Strided(lda)) * ConstView(B, n, k, Strided(ldb)).transpose(), add);
}

void gemm_ab(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, bool add) {
  store(View(C, m, n, Strided(ldc)), ConstView(A, m, k, Strided(lda)) * ConstView(B, k, n, Strided(ldb)), add);
}

void gemm_atb(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc, bool add) {
  store(View(C, m, n, Strided(ldc)), ConstView(A, k, m, Strided(lda)).transpose() * ConstView(B, k, n, Strided(ldb)), add);
}

// base/gemm.hpp's softmax_row: the exponentials vectorised for the set (a build for any x86-64
// would otherwise take them in SSE2 alone, a tenth of a 1,024-token forward pass). Every key goes
// through the same vector exp in chunks of 8, and the sum keeps 8 lanes in a fixed order, so that
// a row's weights do not depend on where it lies in memory: Eigen's own loops over a row start
// with scalar steps up to the first aligned address, whose exp and summation order differ from
// the vector ones, and a matrix from the allocator of a build for any x86-64 is aligned to 16
// bytes only (one computed twice, on two threads, came out different in its last bits).
float softmax_row(float* data, int n, float sink) {
  using Chunk = Eigen::Array<float, 8, 1>;
  using Loose = Eigen::Map<Chunk, Eigen::Unaligned>;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  float m = sink;
  for (int i = 0; i < n; ++i) m = std::max(m, data[i]);
  if (m == neg_inf) {
    std::fill(data, data + n, 0.0f);
    return 0.0f;
  }
  Chunk lanes = Chunk::Zero();
  for (int i = 0; i < n; i += 8) {
    const int len = std::min(8, n - i);
    Chunk x = Chunk::Constant(neg_inf);  // the last chunk's missing keys: masked, weight 0
    if (len == 8) x = Loose(data + i);
    else std::copy(data + i, data + i + len, x.data());
    // Vectorised exp clamps its argument (e^−∞ would come out as 3·10⁻³⁹): masked keys get
    // exactly 0 instead.
    const Chunk e = (x == neg_inf).select(Chunk::Zero(), (x - m).exp());
    lanes += e;
    if (len == 8) Loose(data + i) = e;
    else std::copy(e.data(), e.data() + len, data + i);
  }
  const float sink_part = sink == neg_inf ? 0.0f : std::exp(sink - m);
  float total = sink_part;
  for (int lane = 0; lane < 8; ++lane) total += lanes[lane];
  for (int i = 0; i < n; ++i) data[i] /= total;
  return sink_part / total;
}

// BF16 is a float32's top half: a shift, which the compiler vectorises for the set.
void widen_bf16(const char* src, std::int64_t n, float* dst) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    dst[i] = std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
  }
}

// base/gemm.hpp's round_to_bf16 (base/half.hpp's rule), sixteen at a time in GCC's vector
// extensions (-O2 leaves a scalar loop as it is: a BF16 forward rounds every activation and every
// logit, 9 % of its time one at a time).
void round_to_bf16(float* x, std::int64_t n) {
  typedef std::uint32_t Bits __attribute__((vector_size(64)));
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    Bits b;
    std::memcpy(&b, x + i, sizeof b);
    round_bits_to_bf16(b);
    std::memcpy(x + i, &b, sizeof b);
  }
  if (i == n) return;
  Bits b = {};  // the last few, in a vector of their own
  const std::size_t rest = static_cast<std::size_t>(n - i) * sizeof(float);
  std::memcpy(&b, x + i, rest);
  round_bits_to_bf16(b);
  std::memcpy(x + i, &b, rest);
}

// F16 through the processor's converter (F16C, in the AVX2 and AVX-512 copies), eight at a time.
void widen_f16(const char* src, std::int64_t n, float* dst) {
  std::int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i))));
#endif
  for (; i < n; ++i) {
    std::uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    dst[i] = half_to_float(h);
  }
}

}  // namespace poslab::kernels::POSLAB_KERNEL_NS

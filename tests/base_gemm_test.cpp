// The matrix products of base/gemm.hpp on every instruction set this machine has, against a plain
// triple loop in double precision: the same numbers on each path, up to float rounding.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "base/gemm.hpp"

namespace poslab {
namespace {

std::vector<float> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// Every path this CPU can run, the baseline first.
std::vector<Isa> paths() {
  std::vector<Isa> all;
  for (Isa isa : {Isa::Baseline, Isa::Avx2, Isa::Avx512})
    if (static_cast<int>(isa) <= static_cast<int>(cpu_isa())) all.push_back(isa);
  return all;
}

// Restores the instruction set the process started with.
struct KeepIsa {
  Isa was = active_isa();
  ~KeepIsa() { EXPECT_TRUE(use_isa(was)); }
};

TEST(Gemm, EveryInstructionSetGivesTheTripleLoopsProducts) {
  KeepIsa keep;
  // Odd sizes and leading dimensions wider than the rows: the edges of every kernel's blocks.
  const int m = 37, n = 29, k = 83, lda = 90, ldb = 85, ldc = 31;
  const std::vector<float> A = random_values(static_cast<std::size_t>(m * lda), 1);
  const std::vector<float> Bt = random_values(static_cast<std::size_t>(n * ldb), 2);  // n × k
  const std::vector<float> B = random_values(static_cast<std::size_t>(k * ldb), 3);   // k × n
  const std::vector<float> At = random_values(static_cast<std::size_t>(k * lda), 4);  // k × m: Aᵀ·B
  for (Isa isa : paths()) {
    ASSERT_TRUE(use_isa(isa));
    EXPECT_EQ(active_isa(), isa);
    std::vector<float> C(static_cast<std::size_t>(m * ldc), 7.0f), D(C), E(C);
    gemm_abt(m, n, k, A.data(), lda, Bt.data(), ldb, C.data(), ldc);
    gemm_ab(m, n, k, A.data(), lda, B.data(), ldb, D.data(), ldc);
    gemm_atb(m, n, k, At.data(), lda, B.data(), ldb, E.data(), ldc, Into::Add);  // onto the 7s
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double abt = 0.0, ab = 0.0, atb = 7.0;
        for (int p = 0; p < k; ++p) {
          abt += static_cast<double>(A[static_cast<std::size_t>(i * lda + p)]) * Bt[static_cast<std::size_t>(j * ldb + p)];
          ab += static_cast<double>(A[static_cast<std::size_t>(i * lda + p)]) * B[static_cast<std::size_t>(p * ldb + j)];
          atb += static_cast<double>(At[static_cast<std::size_t>(p * lda + i)]) * B[static_cast<std::size_t>(p * ldb + j)];
        }
        EXPECT_NEAR(C[static_cast<std::size_t>(i * ldc + j)], abt, 1e-4) << isa_name(isa) << " (" << i << ", " << j << ")";
        EXPECT_NEAR(D[static_cast<std::size_t>(i * ldc + j)], ab, 1e-4) << isa_name(isa) << " (" << i << ", " << j << ")";
        EXPECT_NEAR(E[static_cast<std::size_t>(i * ldc + j)], atb, 1e-4) << isa_name(isa) << " (" << i << ", " << j << ")";
      }
    // The columns past n in each row are the caller's: untouched.
    for (int i = 0; i < m; ++i) EXPECT_EQ(C[static_cast<std::size_t>(i * ldc + n)], 7.0f) << isa_name(isa);
  }
}

// Every one of the 65,536 F16 and BF16 patterns, on every path: F16 against its definition in
// double ((-1)^s · 2^(e−15) · (1 + m/1024), subnormals 2^−14 · m/1024), BF16 as a float's top
// half. An odd start and count: the eight-wide F16C loop and its scalar tail both run.
TEST(Gemm, EveryInstructionSetWidensEveryHalfAndBfloatExactly) {
  KeepIsa keep;
  std::vector<char> bytes(2 * 65536 + 1);
  for (std::uint32_t v = 0; v < 65536; ++v) {
    const auto h = static_cast<std::uint16_t>(v);
    std::memcpy(bytes.data() + 1 + 2 * v, &h, 2);
  }
  for (Isa isa : paths()) {
    ASSERT_TRUE(use_isa(isa));
    std::vector<float> f16(65536), bf16(65536);
    widen_f16(bytes.data() + 1, 65535, f16.data());
    widen_f16(bytes.data() + 1 + 2 * 65535, 1, f16.data() + 65535);
    widen_bf16(bytes.data() + 1, 65536, bf16.data());
    for (std::uint32_t v = 0; v < 65536; ++v) {
      const int sign = (v >> 15) != 0 ? -1 : 1, e = static_cast<int>((v >> 10) & 0x1F), m = static_cast<int>(v & 0x3FF);
      const float got = f16[v];
      if (e == 0x1F) {
        EXPECT_TRUE(m != 0 ? std::isnan(got) : got == sign * INFINITY) << isa_name(isa) << " " << v;
      } else {
        const double want = sign * (e == 0 ? std::ldexp(m / 1024.0, -14) : std::ldexp(1.0 + m / 1024.0, e - 15));
        EXPECT_EQ(static_cast<double>(got), want) << isa_name(isa) << " F16 " << v;
      }
      const float b = bf16[v];
      EXPECT_EQ(std::bit_cast<std::uint32_t>(b), v << 16) << isa_name(isa) << " BF16 " << v;
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Attention's softmax on every path, against its definition in double: masked keys (−∞) get
// exactly 0, a sink takes its share without a value, and a row with every key masked and no sink
// gets no weights rather than NaN. 37 keys: the vector loops and their tails both run.
// round_to_bf16 on every path: the nearest BF16 with ties to even (the carry into the exponent
// included), infinities kept, a NaN still a NaN (its payload's carry would make it an infinity or
// a zero), at lengths that leave a short last block.
TEST(Gemm, EveryInstructionSetRoundsToBf16TiesToEven) {
  KeepIsa keep;
  const std::vector<std::uint32_t> bits = {0x3F808000u, 0x3F818000u, 0x3F80FFFFu, 0x3F807FFFu, 0x7F7FFFFFu, 0xBF808001u, 0x7F800000u,
                                           0xFF800000u, 0x7FFFFFFFu, 0x7FC00001u, 0x00008000u, 0x00018000u, 0x80000000u};
  const std::vector<std::uint32_t> want = {0x3F800000u, 0x3F820000u, 0x3F810000u, 0x3F800000u, 0x7F800000u, 0xBF810000u, 0x7F800000u,
                                           0xFF800000u, 0x7FFFFFFFu, 0x7FC00001u, 0x00000000u, 0x00020000u, 0x80000000u};
  for (Isa isa : paths()) {
    ASSERT_TRUE(use_isa(isa));
    for (std::size_t n : {bits.size(), std::size_t{16} + bits.size(), std::size_t{1}}) {
      std::vector<float> x(n);
      for (std::size_t i = 0; i < n; ++i) x[i] = std::bit_cast<float>(bits[i % bits.size()]);
      round_to_bf16(x.data(), static_cast<std::int64_t>(n));
      for (std::size_t i = 0; i < n; ++i)
        EXPECT_EQ(std::bit_cast<std::uint32_t>(x[i]), want[i % bits.size()]) << isa_name(isa) << " n " << n << " #" << i;
    }
  }
}

TEST(Gemm, EveryInstructionSetGivesTheSoftmaxsDefinition) {
  KeepIsa keep;
  const float neg_inf = -INFINITY;
  std::vector<float> scores = random_values(37, 5);
  for (float& x : scores) x *= 4.0f;
  scores[3] = scores[20] = neg_inf;
  for (Isa isa : paths()) {
    ASSERT_TRUE(use_isa(isa));
    for (const float sink : {neg_inf, 1.5f}) {
      std::vector<float> row = scores;
      const float share = softmax_row(row.data(), 37, sink);
      double m = sink;
      for (float x : scores) m = std::max(m, static_cast<double>(x));
      double total = sink == neg_inf ? 0.0 : std::exp(sink - m);
      for (float x : scores) total += std::exp(x - m);
      for (int j = 0; j < 37; ++j) {
        const auto jj = static_cast<std::size_t>(j);
        if (scores[jj] == neg_inf) EXPECT_EQ(row[jj], 0.0f) << isa_name(isa) << " key " << j;
        else EXPECT_NEAR(row[jj], std::exp(scores[jj] - m) / total, 1e-6) << isa_name(isa) << " key " << j;
      }
      EXPECT_NEAR(share, sink == neg_inf ? 0.0 : std::exp(sink - m) / total, 1e-6) << isa_name(isa);
    }
    std::vector<float> masked(9, neg_inf);
    EXPECT_EQ(softmax_row(masked.data(), 9, neg_inf), 0.0f) << isa_name(isa);
    for (float w : masked) EXPECT_EQ(w, 0.0f) << isa_name(isa);
  }
}

// A weight matrix as a file stores it: its floats rounded to the type (F16 by the processor's own
// conversion is not at hand here, so by frexp), the bytes, and the values they mean.
struct StoredWeights {
  std::vector<char> bytes;
  std::vector<float> values;
};

StoredWeights store_as(const std::vector<float>& v, StoredType type) {
  StoredWeights w;
  const std::size_t item = type == StoredType::F32 ? 4 : 2;
  w.bytes.resize(v.size() * item);
  w.values.resize(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (type == StoredType::F32) {
      std::memcpy(w.bytes.data() + 4 * i, &v[i], 4);
      w.values[i] = v[i];
      continue;
    }
    std::uint16_t bits = 0;
    if (type == StoredType::BF16) {
      bits = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(v[i]) >> 16);  // truncated: still a BF16
    } else {
      // |v| < 4 here: a normal F16 with 10 mantissa bits, or a subnormal past 2⁻¹⁴.
      const float a = std::fabs(v[i]);
      int e = 0;
      const double m = std::frexp(static_cast<double>(a), &e);  // a = m·2ᵉ, m in [0.5, 1)
      const int biased = e - 1 + 15;
      if (a == 0.0f) bits = 0;
      else if (biased <= 0) bits = static_cast<std::uint16_t>(std::lround(std::ldexp(a, 24)));
      else bits = static_cast<std::uint16_t>((biased << 10) + (std::lround(m * 2048.0) - 1024));
      if (std::signbit(v[i])) bits |= 0x8000;
    }
    std::memcpy(w.bytes.data() + 2 * i, &bits, 2);
  }
  std::vector<float> widened(v.size());
  if (type == StoredType::BF16) widen_bf16(w.bytes.data(), static_cast<std::int64_t>(v.size()), widened.data());
  if (type == StoredType::F16) widen_f16(w.bytes.data(), static_cast<std::int64_t>(v.size()), widened.data());
  if (type != StoredType::F32) w.values = widened;
  return w;
}

// gemm_weights on every path, for every stored type, in both layouts, at sizes that leave every
// kind of edge (a partial tile of rows and of columns, a partial block of the sum, an odd one, one
// row), with W's rows wider than k, and with float or BF16 activations (BF16 times BF16 weights
// goes on AMX's tiles where the CPU has them): the product of the values the bytes mean, in
// double; and W packed whole once (PackedWeights) gives the same bits.
TEST(Gemm, EveryInstructionSetMultipliesWeightsAsStored) {
  KeepIsa keep;
  struct Shape {
    int m, n, k;
  };
  for (const Shape s : {Shape{1, 37, 300}, Shape{13, 70, 257}, Shape{100, 33, 600}, Shape{7, 1, 5}, Shape{20, 40, 515}, Shape{30, 35, 1100}}) {
    const int ldx = s.k + 3, ldy = s.n + 2;
    const std::vector<float> floats = random_values(static_cast<std::size_t>(s.m * ldx), 11);
    std::vector<float> bf16 = floats;
    round_to_bf16(bf16.data(), static_cast<std::int64_t>(bf16.size()));
    for (const StoredType type : {StoredType::F32, StoredType::F16, StoredType::BF16})
      for (const bool transposed : {false, true}) {
        // Linear: n rows of k, `stride` apart; Conv1D: k rows of n.
        const std::int64_t stride = transposed ? s.n + 5 : s.k + 4;
        const std::int64_t rows = transposed ? s.k : s.n;
        const StoredWeights W = store_as(random_values(static_cast<std::size_t>(rows * stride), 12), type);
        for (Isa isa : paths())
          for (const Inputs x : {Inputs::F32, Inputs::BF16}) {
          ASSERT_TRUE(use_isa(isa));
          const std::vector<float>& X = x == Inputs::BF16 ? bf16 : floats;
          const bool tiles = x == Inputs::BF16 && type == StoredType::BF16 && bf16_tile_products();
          std::vector<float> Y(static_cast<std::size_t>(s.m * ldy), 7.0f);
          gemm_weights(s.m, s.n, s.k, X.data(), ldx, W.bytes.data(), type, transposed, stride, Y.data(), ldy, x);
          for (int i = 0; i < s.m; ++i) {
            for (int j = 0; j < s.n; ++j) {
              double want = 0.0;
              for (int p = 0; p < s.k; ++p)
                want += static_cast<double>(X[static_cast<std::size_t>(i * ldx + p)]) *
                        W.values[static_cast<std::size_t>(transposed ? p * stride + j : j * stride + p)];
              ASSERT_NEAR(Y[static_cast<std::size_t>(i * ldy + j)], want, 2e-4 * std::sqrt(s.k))
                  << isa_name(isa) << (tiles ? " on AMX tiles" : "") << " type " << static_cast<int>(type)
                  << (transposed ? " Conv1D" : " Linear") << " m " << s.m << " k " << s.k << " (" << i << ", " << j << ")";
            }
            EXPECT_EQ(Y[static_cast<std::size_t>(i * ldy + s.n)], 7.0f) << "past n: the caller's";
          }
          // Packed once, the same bits.
          const PackedWeights packed = PackedWeights::pack(s.n, s.k, W.bytes.data(), type, transposed, stride, x);
          EXPECT_TRUE(packed.fits(s.n, s.k, type, x));
          EXPECT_FALSE(packed.fits(s.n + 1, s.k, type, x));
          // A pack for the tiles is not the floats' pack (nor the other way round).
          const Inputs other = x == Inputs::BF16 ? Inputs::F32 : Inputs::BF16;
          EXPECT_EQ(packed.fits(s.n, s.k, type, other), type != StoredType::BF16 || !bf16_tile_products());
          std::vector<float> Z(Y.size(), 7.0f);
          packed.multiply(s.m, X.data(), ldx, Z.data(), ldy);
          EXPECT_EQ(0, std::memcmp(Y.data(), Z.data(), Y.size() * sizeof(float))) << isa_name(isa) << (tiles ? " on tiles" : "") << " packed once";
        }
      }
  }
}

// A row of Y is summed in the same order whatever rows come with it: the first rows of a product
// of 70 rows are, bit for bit, those of the product of those rows alone (a forward pass's position
// t does not depend on the sentence's length), on every path, with float and BF16 activations
// (the latter on AMX's tiles where the CPU has them, whole tiles and partial ones).
TEST(Gemm, ARowsProductDoesNotDependOnTheOtherRows) {
  KeepIsa keep;
  const int m = 70, n = 67, k = 1500;
  std::vector<float> X = random_values(static_cast<std::size_t>(m * k), 21);
  round_to_bf16(X.data(), static_cast<std::int64_t>(X.size()));
  const StoredWeights W = store_as(random_values(static_cast<std::size_t>(n * k), 22), StoredType::BF16);
  for (Isa isa : paths())
    for (const Inputs x : {Inputs::F32, Inputs::BF16}) {
      ASSERT_TRUE(use_isa(isa));
      std::vector<float> all(static_cast<std::size_t>(m * n));
      gemm_weights(m, n, k, X.data(), k, W.bytes.data(), StoredType::BF16, false, k, all.data(), n, x);
      for (const int few : {1, 5, 16, 33}) {
        std::vector<float> alone(static_cast<std::size_t>(few * n));
        gemm_weights(few, n, k, X.data(), k, W.bytes.data(), StoredType::BF16, false, k, alone.data(), n, x);
        EXPECT_EQ(0, std::memcmp(all.data(), alone.data(), alone.size() * sizeof(float)))
            << isa_name(isa) << (x == Inputs::BF16 && bf16_tile_products() ? " on tiles" : "") << ": the first " << few << " rows";
      }
    }
}

// Each element of Y is one thread's, summed in one order: one thread, two threads, and a call from
// inside a parallel region give the same bits.
TEST(Gemm, WeightProductsDoNotDependOnTheThreads) {
  const int m = 50, n = 300, k = 700;
  const std::vector<float> X = random_values(static_cast<std::size_t>(m * k), 13);
  const StoredWeights W = store_as(random_values(static_cast<std::size_t>(n * k), 14), StoredType::BF16);
  auto product = [&] {
    std::vector<float> Y(static_cast<std::size_t>(m * n));
    gemm_weights(m, n, k, X.data(), k, W.bytes.data(), StoredType::BF16, false, k, Y.data(), n);
    return Y;
  };
  const int threads = omp_get_max_threads();
  omp_set_num_threads(2);
  const std::vector<float> two = product();
  omp_set_num_threads(1);
  const std::vector<float> one = product();
  omp_set_num_threads(threads);
  std::vector<float> nested;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    nested = product();
  }
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(one.data(), nested.data(), one.size() * sizeof(float)));
}

TEST(Gemm, AnInstructionSetTheCpuLacksIsRefusedByName) {
  KeepIsa keep;
  EXPECT_EQ(*parse_isa("avx2"), Isa::Avx2);
  EXPECT_FALSE(parse_isa("avx9"));
  EXPECT_NE(parse_isa("sse").error().find("baseline, avx2, avx512"), std::string::npos);
  EXPECT_TRUE(use_isa(Isa::Baseline)) << "every x86-64 has the baseline";
  if (cpu_isa() != Isa::Avx512) {
    auto refused = use_isa(Isa::Avx512);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("this CPU has no AVX-512"), std::string::npos) << refused.error();
  }
}

}  // namespace
}  // namespace poslab

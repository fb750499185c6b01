// Encodings against NumPy values written from the papers (tests/reference), and RoPE's properties.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/encodings/encodings.hpp"
#include "base/random.hpp"
#include "reference.hpp"

using namespace poslab;
using poslab::testing::max_diff;
using poslab::testing::reference;

namespace {

Matrix from_reference(const std::string& name) { return reference(name).cast<float>(); }

const std::vector<int> kPositions = {0, 1, 2, 7, 1000};

}  // namespace

TEST(Sinusoidal, MatchesNumpyReference) {
  EXPECT_LT(max_diff(sinusoidal_encoding(6, 8, 10000.0), reference("sinusoidal_T6_d8_base10000")), 1e-7);
  EXPECT_LT(max_diff(sinusoidal_encoding(4, 5, 100.0), reference("sinusoidal_T4_d5_base100")), 1e-7);
}

TEST(Sinusoidal, HandDerivedValues) {
  // PE(p, 0) = sin(p), PE(p, 1) = cos(p): θ₀ = 1 for every base.
  const Matrix pe = sinusoidal_encoding(3, 4, 10000.0);
  EXPECT_FLOAT_EQ(pe(2, 0), static_cast<float>(std::sin(2.0)));
  EXPECT_FLOAT_EQ(pe(2, 1), static_cast<float>(std::cos(2.0)));
  // θ₁ = 10000^(−2/4) = 0.01.
  EXPECT_FLOAT_EQ(pe(2, 2), static_cast<float>(std::sin(0.02)));
}

TEST(Sinusoidal, AnglesInDoublePrecisionAtLargePositions) {
  // In float32, p·θ at p ≈ 10⁵ loses digits; the table must hold sin of the exact angle.
  const Matrix pe = sinusoidal_encoding(100001, 2, 10000.0);
  EXPECT_NEAR(pe(100000, 0), std::sin(100000.0), 1e-7);
}

TEST(RopeThetas, FollowTheDefinition) {
  const auto t = rope_thetas(8, 10000.0);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_DOUBLE_EQ(t[0], 1.0);
  EXPECT_DOUBLE_EQ(t[2], 0.01);
  EXPECT_NEAR(t[3], std::pow(10000.0, -0.75), 1e-15);
}

TEST(Rope, InterleavedMatchesNumpyReference) {
  for (auto [base, name] : {std::pair{10000.0, "rope_interleaved_base10000"}, std::pair{500000.0, "rope_interleaved_base500000"}}) {
    Matrix x = from_reference("rope_input");
    apply_rope(x, kPositions, rope_thetas(8, base), RopeStyle::Interleaved);
    EXPECT_LT(max_diff(x, reference(name)), 2e-6) << name;
  }
}

TEST(Rope, RotateHalfMatchesHuggingFaceFormula) {
  Matrix x = from_reference("rope_input");
  apply_rope(x, kPositions, rope_thetas(8, 10000.0), RopeStyle::Half);
  EXPECT_LT(max_diff(x, reference("rope_half_base10000")), 2e-6);
}

TEST(Rope, PreservesNorms) {
  Matrix x = gaussian_matrix(16, 64, 1.0, 3);
  const Eigen::VectorXf before = x.rowwise().norm();
  std::vector<int> pos(16);
  std::iota(pos.begin(), pos.end(), 100);
  apply_rope(x, pos, rope_thetas(64, 10000.0), RopeStyle::Interleaved);
  EXPECT_LT((x.rowwise().norm() - before).cwiseAbs().maxCoeff(), 1e-4);
}

// (R_m q)·(R_n k) = q·R_{n−m} k: the score depends on n − m only.
class RopeRelative : public ::testing::TestWithParam<RopeStyle> {};

TEST_P(RopeRelative, ScoreDependsOnlyOnDistance) {
  const int d = 64;
  const auto thetas = rope_thetas(d, 10000.0);
  Rng rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    const Matrix q = gaussian_matrix(1, d, 1.0, mix_seed(7, static_cast<std::uint64_t>(trial)));
    const Matrix k = gaussian_matrix(1, d, 1.0, mix_seed(8, static_cast<std::uint64_t>(trial)));
    const int m = static_cast<int>(rng.next_u64() % 500), n = static_cast<int>(rng.next_u64() % 500);
    auto rotated = [&](const Matrix& v, int p) {
      Matrix r = v;
      const int pos[] = {p};
      apply_rope(r, pos, thetas, GetParam());
      return r;
    };
    const double score = rotated(q, m).row(0).cast<double>().dot(rotated(k, n).row(0).cast<double>());
    const double relative = q.row(0).cast<double>().dot(rotated(k, n - m).row(0).cast<double>());
    const double shifted = rotated(q, m + 37).row(0).cast<double>().dot(rotated(k, n + 37).row(0).cast<double>());
    EXPECT_NEAR(score, relative, 1e-3) << "m=" << m << " n=" << n;
    EXPECT_NEAR(score, shifted, 1e-3) << "m=" << m << " n=" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(BothConventions, RopeRelative, ::testing::Values(RopeStyle::Interleaved, RopeStyle::Half));

TEST(Rope, ConventionsDifferByAFixedPermutation) {
  // Interleaved RoPE on x equals rotate-half RoPE on P·x, permuted back.
  const int d = 16;
  const auto perm = interleaved_to_half_permutation(d);
  const auto thetas = rope_thetas(d, 10000.0);
  const Matrix x = gaussian_matrix(5, d, 1.0, 11);
  Matrix interleaved = x;
  apply_rope(interleaved, kPositions, thetas, RopeStyle::Interleaved);
  Matrix permuted(5, d);
  for (int j = 0; j < d; ++j) permuted.col(perm[static_cast<std::size_t>(j)]) = x.col(j);
  apply_rope(permuted, kPositions, thetas, RopeStyle::Half);
  Matrix back(5, d);
  for (int j = 0; j < d; ++j) back.col(j) = permuted.col(perm[static_cast<std::size_t>(j)]);
  EXPECT_LT((back - interleaved).cwiseAbs().maxCoeff(), 1e-5);
  // And the two conventions really differ without the permutation.
  Matrix half = x;
  apply_rope(half, kPositions, thetas, RopeStyle::Half);
  EXPECT_GT((half - interleaved).cwiseAbs().maxCoeff(), 1e-2);
}

TEST(Rope, OddHeadWidthLeavesLastDimensionAlone) {
  EXPECT_EQ(rotary_width(25), 24);
  EXPECT_EQ(rotary_width(64), 64);
  Matrix x = gaussian_matrix(3, 25, 1.0, 5);
  const Matrix before = x;
  const int pos[] = {4, 9, 100};
  apply_rope(x.leftCols(25), pos, rope_thetas(24, 10000.0), RopeStyle::Interleaved);
  EXPECT_EQ(x.col(24), before.col(24));
  EXPECT_GT((x.col(0) - before.col(0)).cwiseAbs().maxCoeff(), 1e-3);
}

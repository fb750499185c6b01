// 2-D RoPE on a patch grid against NumPy transcriptions of naver-ai/rope-vit (tests/reference),
// and its properties: scores depend on (Δx, Δy) only, CLS untouched, norms preserved.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>
#include <vector>

#include "base/random.hpp"
#include "core/encodings/rope_nd.hpp"
#include "reference.hpp"

using namespace poslab;
using poslab::testing::max_diff;
using poslab::testing::reference;

namespace {

std::vector<double> row_vector(const Eigen::MatrixXd& m) {
  return std::vector<double>(m.data(), m.data() + m.size());
}

// For every pair of patches with the same offset (Δx, Δy), q_a·k_b must be the same when every
// patch holds the same q and k before rotation.
template <typename Rotate>
void expect_scores_depend_on_offset_only(int W, int H, int head_dim, Rotate rotate) {
  const auto grid = patch_grid(W, H, false);
  const int T = W * H;
  const Matrix q0 = gaussian_matrix(1, head_dim, 1.0, 101);
  const Matrix k0 = gaussian_matrix(1, head_dim, 1.0, 202);
  Matrix Q = q0.replicate(T, 1), K = k0.replicate(T, 1);
  rotate(Q, grid);
  rotate(K, grid);
  std::map<std::pair<int, int>, double> seen;
  int checked = 0;
  for (int a = 0; a < T; ++a) {
    for (int b = 0; b < T; ++b) {
      const std::pair<int, int> offset{grid[b].x - grid[a].x, grid[b].y - grid[a].y};
      const double score = Q.row(a).cast<double>().dot(K.row(b).cast<double>());
      auto [it, fresh] = seen.emplace(offset, score);
      if (!fresh) {
        EXPECT_NEAR(score, it->second, 1e-4) << "Δ=(" << offset.first << ", " << offset.second << ")";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, T * T / 2);
  // And the score really changes with the offset.
  EXPECT_GT(std::abs(seen[{1, 0}] - seen[{0, 1}]), 1e-3);
}

}  // namespace

TEST(PatchGrid, RasterOrderWithOptionalClsFirst) {
  const auto g = patch_grid(3, 2, true);
  ASSERT_EQ(g.size(), 7u);
  EXPECT_TRUE(g[0].cls);
  for (int t = 0; t < 6; ++t) {
    const auto& p = g[static_cast<std::size_t>(t + 1)];
    EXPECT_FALSE(p.cls);
    EXPECT_EQ(p.x, t % 3);
    EXPECT_EQ(p.y, t / 3);
  }
  EXPECT_EQ(patch_grid(4, 5, false).size(), 20u);
  EXPECT_FALSE(patch_grid(4, 5, false)[0].cls);
}

TEST(AxialRope, ThetasFollowRopeVit) {
  const auto t = axial_thetas(16, 100.0);
  ASSERT_EQ(t.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(t[static_cast<std::size_t>(i)], std::pow(100.0, -4.0 * i / 16.0), 1e-15);
}

TEST(AxialRope, MatchesRopeVitReference) {
  Matrix x = reference("enc_ropend_input").cast<float>();
  const auto grid = patch_grid(3, 2, true);
  apply_rope_axial(x, grid, 100.0);
  EXPECT_LT(max_diff(x, reference("enc_ropend_axial_W3_H2_d8_b100")), 2e-6);
}

TEST(AxialRope, ClsUntouchedAndNormsPreserved) {
  Matrix x = gaussian_matrix(1 + 8 * 6, 32, 1.0, 4);
  const Matrix before = x;
  apply_rope_axial(x, patch_grid(8, 6, true), 100.0);
  EXPECT_EQ(x.row(0), before.row(0));
  EXPECT_LT((x.rowwise().norm() - before.rowwise().norm()).cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_GT((x - before).cwiseAbs().maxCoeff(), 1e-2);
}

TEST(AxialRope, AxesNeverMix) {
  // A patch in row 0 (y = 0) leaves the y half alone; one in column 0 leaves the x half alone.
  Matrix x = gaussian_matrix(2, 16, 1.0, 8);
  const Matrix before = x;
  const std::vector<GridPosition> pos = {{5, 0}, {0, 3}};
  apply_rope_axial(x, pos, 100.0);
  EXPECT_EQ(x.block(0, 8, 1, 8), before.block(0, 8, 1, 8));
  EXPECT_EQ(x.block(1, 0, 1, 8), before.block(1, 0, 1, 8));
}

TEST(AxialRope, ScoresDependOnOffsetOnly) {
  expect_scores_depend_on_offset_only(7, 5, 32, [](Matrix& X, const std::vector<GridPosition>& g) {
    apply_rope_axial(X, g, 100.0);
  });
}

TEST(AxialRope, WidthNotAMultipleOfFourLeavesTrailingColumns) {
  Matrix x = gaussian_matrix(4, 10, 1.0, 6);
  const Matrix before = x;
  apply_rope_axial(x, patch_grid(2, 2, false), 100.0);
  EXPECT_EQ(x.rightCols(2), before.rightCols(2));
  EXPECT_GT((x.leftCols(8) - before.leftCols(8)).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(MixedRope, MatchesRopeVitReference) {
  const MixedFrequencies f{row_vector(reference("enc_ropend_mixed_fx")), row_vector(reference("enc_ropend_mixed_fy"))};
  Matrix x = reference("enc_ropend_input").cast<float>();
  apply_rope_mixed(x, patch_grid(3, 2, true), f);
  EXPECT_LT(max_diff(x, reference("enc_ropend_mixed_W3_H2_d8")), 2e-6);
}

TEST(MixedRope, FrequenciesFollowInitRandom2dFreqs) {
  const int d = 32;
  const auto f = mixed_frequencies(d, 10.0, 3, 1);
  const auto mag = axial_thetas(d, 10.0);
  const std::size_t q = mag.size();
  ASSERT_EQ(f.fx.size(), 2 * q);
  ASSERT_EQ(f.fy.size(), 2 * q);
  const double phi = std::atan2(f.fy[0], f.fx[0]);
  for (std::size_t i = 0; i < q; ++i) {
    EXPECT_NEAR(std::hypot(f.fx[i], f.fy[i]), mag[i], 1e-15);
    EXPECT_NEAR(f.fx[i], mag[i] * std::cos(phi), 1e-15);
    EXPECT_NEAR(f.fy[i], mag[i] * std::sin(phi), 1e-15);
    // The second half points at φ + π/2: (cos(φ+π/2), sin(φ+π/2)) = (−sin φ, cos φ).
    EXPECT_NEAR(f.fx[q + i], -f.fy[i], 1e-15);
    EXPECT_NEAR(f.fy[q + i], f.fx[i], 1e-15);
  }
  // Seeded per head: the same (seed, head) repeats, another head gets another direction.
  EXPECT_EQ(mixed_frequencies(d, 10.0, 3, 1).fx, f.fx);
  EXPECT_NE(mixed_frequencies(d, 10.0, 3, 2).fx, f.fx);
  EXPECT_NE(mixed_frequencies(d, 10.0, 4, 1).fx, f.fx);
}

TEST(MixedRope, ScoresDependOnOffsetOnlyClsUntouchedNormsKept) {
  const auto f = mixed_frequencies(32, 10.0, 9, 0);
  expect_scores_depend_on_offset_only(6, 4, 32, [&](Matrix& X, const std::vector<GridPosition>& g) {
    apply_rope_mixed(X, g, f);
  });
  Matrix x = gaussian_matrix(1 + 12, 32, 1.0, 5);
  const Matrix before = x;
  apply_rope_mixed(x, patch_grid(4, 3, true), f);
  EXPECT_EQ(x.row(0), before.row(0));
  EXPECT_LT((x.rowwise().norm() - before.rowwise().norm()).cwiseAbs().maxCoeff(), 1e-5);
}

TEST(MixedRope, ShortPositionListOrFewColumnsAreSafe) {
  const auto f = mixed_frequencies(32, 10.0, 9, 0);
  Matrix x = gaussian_matrix(5, 8, 1.0, 5);  // fewer columns than f has pairs for
  const Matrix before = x;
  const std::vector<GridPosition> pos = {{1, 1}, {2, 1}};  // fewer positions than rows
  apply_rope_mixed(x, pos, f);
  EXPECT_EQ(x.bottomRows(3), before.bottomRows(3));
  EXPECT_GT((x.topRows(2) - before.topRows(2)).cwiseAbs().maxCoeff(), 1e-3);
}

// RoPE on the plane against hand-derived values.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/encodings/encodings.hpp"
#include "base/random.hpp"
#include "core/encodings/rope_plane.hpp"

using namespace poslab;

TEST(RopePlane, RotationIsCounterClockwise) {
  const auto v = rotate2({1.0, 0.0}, std::numbers::pi / 2);
  EXPECT_NEAR(v[0], 0.0, 1e-15);
  EXPECT_NEAR(v[1], 1.0, 1e-15);
}

TEST(RopePlane, ScoreDependsOnlyOnNMinusM) {
  const auto thetas = rope_thetas(64, 10000.0);
  Rng rng(5);
  std::vector<double> q(64), k(64);
  for (auto& x : q) x = rng.normal();
  for (auto& x : k) x = rng.normal();
  for (int delta : {-20, 0, 7, 100})
    EXPECT_NEAR(rope_score(q, k, thetas, 0, delta), rope_score(q, k, thetas, 37, 37 + delta), 1e-9);
  // At n = m the rotations cancel: the plain dot product.
  double dot = 0;
  for (int j = 0; j < 64; ++j) dot += q[static_cast<std::size_t>(j)] * k[static_cast<std::size_t>(j)];
  EXPECT_NEAR(rope_score(q, k, thetas, 5, 5), dot, 1e-9);
}

TEST(RopePlane, DecayBoundStartsAtItsMaximumAndFalls) {
  const auto thetas = rope_thetas(128, 10000.0);
  // At r = 0 every term is 1: (1/64) Σⱼ j = 65/2.
  EXPECT_NEAR(rope_decay_bound(thetas, 0), 32.5, 1e-12);
  EXPECT_LT(rope_decay_bound(thetas, 250), rope_decay_bound(thetas, 10));
}

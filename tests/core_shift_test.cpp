// The shift matrix of seed 000 against hand-derived values.
#include <gtest/gtest.h>

#include <cmath>

#include "core/encodings/shift.hpp"

using namespace poslab;

TEST(Shift, MatrixMapsPositionPToPPlusK) {
  const auto pairs = shift_check(8, 10000.0, 3, 200);
  ASSERT_EQ(pairs.size(), 4u);
  // Pair 0 has ω = 1: M_3 = [[cos 3, sin 3], [−sin 3, cos 3]].
  EXPECT_DOUBLE_EQ(pairs[0].omega, 1.0);
  EXPECT_DOUBLE_EQ(pairs[0].matrix[0], std::cos(3.0));
  EXPECT_DOUBLE_EQ(pairs[0].matrix[1], std::sin(3.0));
  EXPECT_DOUBLE_EQ(pairs[0].matrix[2], -std::sin(3.0));
  // Worked by hand for p = 1: M·(sin 1, cos 1) = (sin 1 cos 3 + cos 1 sin 3, …) = (sin 4, cos 4).
  const double s = std::cos(3.0) * std::sin(1.0) + std::sin(3.0) * std::cos(1.0);
  EXPECT_NEAR(s, std::sin(4.0), 1e-15);
  for (const auto& pair : pairs) EXPECT_LT(pair.max_residual, 1e-6);  // float table rounding only
}

TEST(Shift, ItIsAClockwiseRotation) {
  // In (x, y) = (sin, cos), M_k maps (1, 0) to (cos ωk, −sin ωk): clockwise by ωk.
  const auto pairs = shift_check(2, 10000.0, 1, 10);
  EXPECT_GT(pairs[0].matrix[0], 0.0);
  EXPECT_LT(pairs[0].matrix[2], 0.0);
  EXPECT_NEAR(pairs[0].matrix[0] * pairs[0].matrix[3] - pairs[0].matrix[1] * pairs[0].matrix[2], 1.0, 1e-15);
}

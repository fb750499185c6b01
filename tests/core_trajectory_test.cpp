// The trajectory e + PE(p): its steps, computed here from the definitions, and the PCA plane.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "core/encodings/additive.hpp"
#include "core/encodings/encodings.hpp"
#include "core/encodings/trajectory.hpp"

using namespace poslab;

TEST(Trajectory, BinaryStepsAreTheSquareRootOfTheFlippedBits) {
  const int d = 16;
  const Matrix e = Matrix::Constant(1, d, 0.3f);
  auto t = trajectory(e, binary_encoding(64, d, BinaryValues::ZeroOne), TrajectoryPlane::Pca, 0, 0);
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_EQ(t->steps.size(), 63u);
  for (unsigned p = 1; p < 64; ++p)  // p − 1 → p flips the bits of p XOR (p − 1)
    EXPECT_NEAR(t->steps[p - 1], std::sqrt(static_cast<double>(std::popcount(p ^ (p - 1)))), 1e-9) << p;
  // From 31 to 32 six bits flip: the path jumps √6 where most steps are 1.
  EXPECT_NEAR(t->steps[31], std::sqrt(6.0), 1e-9);
}

TEST(Trajectory, SinusoidStepsAllHaveOneLength) {
  // ‖PE(p+1) − PE(p)‖² = Σᵢ (2 − 2cos ωᵢ) for every p, with ωᵢ = base^(−2i/d).
  const int d = 32;
  const double base = 10000.0;
  double expected = 0.0;
  for (int i = 0; i < d / 2; ++i) expected += 2.0 - 2.0 * std::cos(std::pow(base, -2.0 * i / d));
  expected = std::sqrt(expected);
  const Matrix e = Matrix::Random(1, d);
  auto t = trajectory(e, sinusoidal_encoding(200, d, base), TrajectoryPlane::Dims, 0, 1);
  ASSERT_TRUE(t.ok()) << t.error();
  for (double step : t->steps) EXPECT_NEAR(step, expected, 1e-5);
}

TEST(Trajectory, DimsShowTheChosenCoordinatesWithTheEmbedding) {
  const Matrix e = (Matrix(1, 4) << 1, 2, 3, 4).finished();
  const Matrix pe = (Matrix(3, 4) << 0, 0, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1).finished();
  auto t = trajectory(e, pe, TrajectoryPlane::Dims, 2, 0);
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_DOUBLE_EQ(t->points(1, 0), 4.0);  // e₂ + PE(1)₂
  EXPECT_DOUBLE_EQ(t->points(1, 1), 2.0);  // e₀ + PE(1)₀
  EXPECT_DOUBLE_EQ(t->points(2, 0), 3.0);
  EXPECT_FALSE(trajectory(e, pe, TrajectoryPlane::Dims, 0, 4).ok());
  EXPECT_FALSE(trajectory(Matrix::Zero(1, 3), pe, TrajectoryPlane::Pca, 0, 0).ok());
}

TEST(Trajectory, PcaFindsThePlaneThePathLiesIn) {
  // Points on an ellipse in dimensions 3 (wide) and 5 (narrow) of a 8-d space, at an offset.
  const int n = 40, d = 8;
  Matrix pe = Matrix::Zero(n, d);
  for (int p = 0; p < n; ++p) {
    const double a = 2.0 * M_PI * p / n;
    pe(p, 3) = static_cast<float>(5.0 * std::cos(a));
    pe(p, 5) = static_cast<float>(2.0 * std::sin(a));
  }
  const Matrix e = Matrix::Constant(1, d, 1.0f);
  auto t = trajectory(e, pe, TrajectoryPlane::Pca, 0, 0);
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_NEAR(t->explained, 1.0, 1e-9);
  EXPECT_NEAR(t->axes(3, 0), 1.0, 1e-9);  // the wide axis first, signed positive
  EXPECT_NEAR(t->axes(5, 1), 1.0, 1e-9);
  EXPECT_NEAR(t->points(0, 0), 1.0 + 5.0, 1e-5);  // e₃ + 5cos 0
  // A sinusoid of many frequencies does not fit one plane: the share is below 1.
  auto s = trajectory(Matrix::Zero(1, 64), sinusoidal_encoding(128, 64, 10000.0), TrajectoryPlane::Pca, 0, 0);
  ASSERT_TRUE(s.ok());
  EXPECT_LT(s->explained, 0.99);
  EXPECT_GT(s->explained, 0.1);
}

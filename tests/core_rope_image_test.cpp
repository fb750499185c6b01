// n-D RoPE on an image: scores depend on the offset between patches only.
#include <gtest/gtest.h>

#include "core/encodings/rope_image.hpp"
#include "core/state.hpp"  // to_string(Rope2d)

using namespace poslab;

TEST(RopeImage, ScoresDependOnlyOnTheOffset) {
  for (Rope2d kind : {Rope2d::Axial, Rope2d::Mixed}) {
    const Matrix a = rope_image_scores(14, 14, 3, 4, kind, 64, 100.0, 1);
    const Matrix b = rope_image_scores(14, 14, 8, 9, kind, 64, 100.0, 1);  // moved by (5, 5)
    for (int y = 0; y + 5 < 14; ++y)
      for (int x = 0; x + 5 < 14; ++x) EXPECT_NEAR(a(y, x), b(y + 5, x + 5), 1e-4) << to_string(kind);
    // The patch with itself: the plain |v|²/√d, the largest score.
    EXPECT_FLOAT_EQ(a(4, 3), a.maxCoeff());
  }
}

TEST(RopeImage, AxialSeparatesTheAxesMixedDoesNot) {
  // Axial: the score to (x, y) is f(Δx) + g(Δy), so the 2 × 2 "interaction" vanishes.
  const Matrix axial = rope_image_scores(8, 8, 0, 0, Rope2d::Axial, 64, 100.0, 2);
  const Matrix mixed = rope_image_scores(8, 8, 0, 0, Rope2d::Mixed, 64, 100.0, 2);
  double axial_interaction = 0, mixed_interaction = 0;
  for (int y = 1; y < 8; ++y)
    for (int x = 1; x < 8; ++x) {
      axial_interaction += std::abs(axial(y, x) - axial(y, 0) - axial(0, x) + axial(0, 0));
      mixed_interaction += std::abs(mixed(y, x) - mixed(y, 0) - mixed(0, x) + mixed(0, 0));
    }
  EXPECT_LT(axial_interaction, 1e-3);
  EXPECT_GT(mixed_interaction, 1e-1);
}

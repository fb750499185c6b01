// Additive encodings against NumPy values from FORMULAS.md (tests/reference), and the learned
// table's seeding and its limit T_max.
#include <gtest/gtest.h>

#include <cmath>

#include "core/encodings/additive.hpp"
#include "reference.hpp"

using namespace poslab;
using poslab::testing::max_diff;
using poslab::testing::reference;

namespace {

}  // namespace

TEST(Additive, IntegerMatchesReference) {
  EXPECT_EQ(max_diff(integer_encoding(5, 3), reference("enc_integer_T5_d3")), 0.0);
}

TEST(Additive, NormalizedMatchesReference) {
  EXPECT_LT(max_diff(normalized_encoding(5, 3, 5), reference("enc_normalized_T5_d3_N5")), 1e-7);
  EXPECT_LT(max_diff(normalized_encoding(4, 2, 9), reference("enc_normalized_T4_d2_N9")), 1e-7);
}

TEST(Additive, NormalizedCodeOfAPositionDependsOnTheLength) {
  // FORMULAS.md: normalization breaks "same position, same code" across lengths.
  EXPECT_NE(normalized_encoding(4, 2, 4)(2, 0), normalized_encoding(8, 2, 8)(2, 0));
  EXPECT_FLOAT_EQ(normalized_encoding(4, 2, 4)(2, 1), 0.5f);
}

TEST(Additive, BinaryMatchesReference) {
  EXPECT_EQ(max_diff(binary_encoding(6, 4, BinaryValues::ZeroOne), reference("enc_binary01_T6_d4")), 0.0);
  EXPECT_EQ(max_diff(binary_encoding(6, 4, BinaryValues::PlusMinusOne), reference("enc_binarypm_T6_d4")), 0.0);
  // Bits past d are dropped: position 8 = 0b1000 reads 000 in three dimensions.
  EXPECT_EQ(max_diff(binary_encoding(9, 3, BinaryValues::ZeroOne), reference("enc_binary01_T9_d3")), 0.0);
}

TEST(Additive, BinaryLeastSignificantBitFirstAndWideRowsAreSafe) {
  const Matrix pe = binary_encoding(6, 70, BinaryValues::ZeroOne);
  EXPECT_EQ(pe(5, 0), 1.0f);  // 5 = 0b101
  EXPECT_EQ(pe(5, 1), 0.0f);
  EXPECT_EQ(pe(5, 2), 1.0f);
  EXPECT_EQ(pe.rightCols(60).cwiseAbs().maxCoeff(), 0.0f);  // no shift past 63 bits
}

TEST(Additive, LearnedTableIsSeededGaussian) {
  const Matrix a = learned_table(512, 16, 0.02, 7);
  EXPECT_EQ(a.rows(), 512);
  EXPECT_EQ(a.cols(), 16);
  EXPECT_EQ(a, learned_table(512, 16, 0.02, 7));
  EXPECT_NE(a, learned_table(512, 16, 0.02, 8));
  const double mean = a.cast<double>().mean();
  const double sd = std::sqrt((a.cast<double>().array() - mean).square().mean());
  EXPECT_NEAR(mean, 0.0, 0.002);
  EXPECT_NEAR(sd, 0.02, 0.001);
}

TEST(Additive, LearnedEncodingTakesTheFirstRows) {
  const Matrix table = learned_table(512, 8, 1.0, 3);
  auto pe = learned_encoding(table, 600 - 88);
  ASSERT_TRUE(pe.ok()) << pe.error();
  EXPECT_EQ(*pe, table);
  auto shorter = learned_encoding(table, 5);
  ASSERT_TRUE(shorter.ok());
  EXPECT_EQ(*shorter, table.topRows(5));
}

TEST(Additive, LearnedEncodingIsUndefinedPastTmax) {
  const Matrix table = learned_table(512, 8, 1.0, 3);
  auto pe = learned_encoding(table, 600);
  ASSERT_FALSE(pe.ok());
  EXPECT_EQ(pe.error(),
            "the learned table has 512 positions; the sequence needs 600 — a learned encoding is "
            "undefined past T_max");
  EXPECT_FALSE(learned_encoding(table, -1).ok());
}

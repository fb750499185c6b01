// Attention biases against NumPy values (tests/reference): ALiBi with ofirpress's get_slopes,
// T5 buckets with HF's _relative_position_bucket, Shaw et al.'s relative terms.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <string>

#include "core/encodings/bias.hpp"
#include "reference.hpp"

using namespace poslab;
using poslab::testing::max_diff;
using poslab::testing::reference;

namespace {

Eigen::MatrixXd bucket_map(int T, bool bidirectional, int buckets, int max_distance) {
  Eigen::MatrixXd m(T, T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) m(i, j) = t5_bucket(j - i, bidirectional, buckets, max_distance);
  return m;
}

ShawTables reference_shaw_tables() {
  return ShawTables{reference("enc_shaw_keys").cast<float>(), reference("enc_shaw_values").cast<float>(), 1};
}

}  // namespace

TEST(Alibi, EightHeadsArePowersOfTwo) {
  const auto slopes = alibi_slopes(8);
  ASSERT_EQ(slopes.size(), 8u);
  for (int h = 0; h < 8; ++h) EXPECT_EQ(slopes[static_cast<std::size_t>(h)], std::exp2(-(h + 1))) << h;
}

TEST(Alibi, SlopesMatchReferenceImplementation) {
  for (int n : {8, 12, 6}) {
    const auto slopes = alibi_slopes(n);
    const Eigen::MatrixXd& ref = reference("enc_alibi_slopes_" + std::to_string(n));
    ASSERT_EQ(static_cast<Eigen::Index>(slopes.size()), ref.cols()) << n;
    for (std::size_t h = 0; h < slopes.size(); ++h)
      EXPECT_NEAR(slopes[h], ref(0, static_cast<Eigen::Index>(h)), 1e-15) << n << " head " << h;
  }
  EXPECT_TRUE(alibi_slopes(0).empty());
  EXPECT_EQ(alibi_slopes(1), std::vector<double>{1.0 / 256.0});
}

TEST(Alibi, BiasMatricesMatchReference) {
  EXPECT_EQ(max_diff(alibi_bias(5, 0.5, AlibiForm::Causal), reference("enc_alibi_causal_T5_m0p5")), 0.0);
  EXPECT_EQ(max_diff(alibi_bias(5, 0.25, AlibiForm::Symmetric), reference("enc_alibi_symmetric_T5_m0p25")), 0.0);
}

TEST(Alibi, CausalPenaltyGrowsWithDistanceIntoThePast) {
  const Matrix b = alibi_bias(6, 0.125, AlibiForm::Causal);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(b(i, i), 0.0f);
    for (int j = 1; j <= i; ++j) EXPECT_LT(b(i, j - 1), b(i, j));
    for (int j = i + 1; j < 6; ++j) EXPECT_EQ(b(i, j), 0.0f);  // masked by the causal mask
  }
}

TEST(T5, BucketMapsMatchHuggingFace) {
  for (auto [buckets, distance] : {std::pair{32, 128}, std::pair{16, 20}}) {
    const std::string suffix = "_T40_nb" + std::to_string(buckets) + "_md" + std::to_string(distance);
    EXPECT_EQ((bucket_map(40, true, buckets, distance) - reference("enc_t5_bidirectional" + suffix)).cwiseAbs().maxCoeff(), 0.0)
        << suffix;
    EXPECT_EQ((bucket_map(40, false, buckets, distance) - reference("enc_t5_causal" + suffix)).cwiseAbs().maxCoeff(), 0.0)
        << suffix;
  }
}

TEST(T5, BucketsOverAWideRangeMatchHuggingFace) {
  for (auto [buckets, distance] : {std::pair{32, 128}, std::pair{16, 20}}) {
    const std::string suffix = "_range400_nb" + std::to_string(buckets) + "_md" + std::to_string(distance);
    const Eigen::MatrixXd& bi = reference("enc_t5_bidirectional" + suffix);
    const Eigen::MatrixXd& causal = reference("enc_t5_causal" + suffix);
    for (int r = -400; r <= 400; ++r) {
      EXPECT_EQ(t5_bucket(r, true, buckets, distance), bi(0, r + 400)) << suffix << " r=" << r;
      EXPECT_EQ(t5_bucket(r, false, buckets, distance), causal(0, r + 400)) << suffix << " r=" << r;
    }
  }
}

TEST(T5, HandCheckedBuckets) {
  // Bidirectional, 32 buckets: 16 per sign, exact below 8, keys after the query offset by 16.
  EXPECT_EQ(t5_bucket(0, true, 32, 128), 0);
  EXPECT_EQ(t5_bucket(-7, true, 32, 128), 7);
  EXPECT_EQ(t5_bucket(7, true, 32, 128), 23);
  EXPECT_EQ(t5_bucket(-16, true, 32, 128), 10);  // 8 + ⌊ln 2 / ln 16 · 8⌋ = 8 + 2
  EXPECT_EQ(t5_bucket(-127, true, 32, 128), 15);
  // Causal: future keys (j > i) all share bucket 0; the past has all 32 buckets.
  EXPECT_EQ(t5_bucket(5, false, 32, 128), 0);
  EXPECT_EQ(t5_bucket(-15, false, 32, 128), 15);
  EXPECT_EQ(t5_bucket(-1000, false, 32, 128), 31);
}

TEST(T5, MonotoneInDistanceAndSaturatesAtMaxDistance) {
  for (bool bidirectional : {true, false}) {
    for (auto [buckets, distance] : {std::pair{32, 128}, std::pair{16, 20}}) {
      const int range = bidirectional ? buckets / 2 : buckets;
      int previous = -1;
      for (int n = 0; n < 3 * distance; ++n) {
        const int b = t5_bucket(-n, bidirectional, buckets, distance);
        EXPECT_GE(b, previous) << n;
        EXPECT_LT(b, range);
        if (n >= distance) {
          EXPECT_EQ(b, range - 1) << "n=" << n;
        }
        previous = b;
      }
      EXPECT_LT(t5_bucket(-(distance - 1), bidirectional, buckets, distance), range);
    }
  }
}

TEST(T5, ExtremeAndDegenerateInputsAreSafe) {
  EXPECT_EQ(t5_bucket(INT_MIN, true, 32, 128), 15);
  EXPECT_EQ(t5_bucket(INT_MAX, true, 32, 128), 31);
  EXPECT_EQ(t5_bucket(INT_MIN, false, 32, 128), 31);
  EXPECT_EQ(t5_bucket(-5, false, 1, 128), 0);  // no exact buckets: log(n/0) is never taken
  EXPECT_EQ(t5_bucket(-5, false, 8, 2), 7);    // max_distance below max_exact saturates
}

TEST(T5, BiasLooksUpTheHeadsRow) {
  const Matrix table = t5_bias_table(4, 32, 0.5, 11);
  ASSERT_EQ(table.rows(), 4);
  ASSERT_EQ(table.cols(), 32);
  EXPECT_EQ(table, t5_bias_table(4, 32, 0.5, 11));
  const Matrix b = t5_bias(12, table, 2, true, 32, 128);
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 12; ++j) EXPECT_EQ(b(i, j), table(2, t5_bucket(j - i, true, 32, 128)));
  // Relative: constant along diagonals.
  EXPECT_EQ(b(3, 5), b(7, 9));
}

TEST(Shaw, TermsMatchReference) {
  const ShawTables t = reference_shaw_tables();
  const Matrix q = reference("enc_shaw_Q").cast<float>();
  const Matrix w = reference("enc_shaw_weights").cast<float>();
  EXPECT_LT(max_diff(shaw_score_term(q, t), reference("enc_shaw_score")), 1e-6);
  EXPECT_LT(max_diff(shaw_value_term(w, t), reference("enc_shaw_value")), 1e-6);
}

TEST(Shaw, TablesAreSeededAndShaped) {
  const ShawTables t = shaw_tables(4, 16, 0.1, 5);
  EXPECT_EQ(t.clip, 4);
  EXPECT_EQ(t.keys.rows(), 9);
  EXPECT_EQ(t.keys.cols(), 16);
  EXPECT_EQ(t.values.rows(), 9);
  EXPECT_NE(t.keys, t.values);
  EXPECT_EQ(shaw_tables(4, 16, 0.1, 5).keys, t.keys);
}

TEST(Shaw, OffsetsBeyondTheClipShareOneVector) {
  const ShawTables t = shaw_tables(2, 8, 1.0, 9);
  Matrix q = Matrix::Ones(10, 8);
  const Matrix s = shaw_score_term(q, t);
  // j − i = 5 and 7 both clip to +2; −3 and −9 to −2.
  EXPECT_EQ(s(0, 5), s(0, 7));
  EXPECT_EQ(s(9, 6), s(9, 0));
  EXPECT_NE(s(0, 1), s(0, 2));
  // One-hot weights pick exactly one value vector.
  Matrix w = Matrix::Zero(10, 10);
  w(4, 9) = 1.0f;  // offset +5 → a_{+2}, row 4 of the table
  EXPECT_LT((shaw_value_term(w, t).row(4) - t.values.row(4)).cwiseAbs().maxCoeff(), 1e-6);
}

// The pieces of 2025–26's positional designs, each against numbers worked out by hand: MXFP4
// blocks (GPT-OSS's experts) decoded value by value, learned sinks taking their share of a row,
// and Llama 4's chunks masking what lies outside a query's chunk, on both CPU paths.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "base/random.hpp"
#include "core/attention/attention.hpp"
#include "core/model/checkpoint.hpp"
#include "core/model/forward.hpp"

namespace poslab {
namespace {

TEST(Mxfp4, TheSixteenCodesAreE2M1) {
  const float expected[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
  for (unsigned code = 0; code < 16; ++code) EXPECT_EQ(fp4_e2m1(code), expected[code]) << code;
  EXPECT_TRUE(std::signbit(fp4_e2m1(8)));
}

// Two rows of 64 values: two blocks of 32 each, each block with its own scale byte. The low
// nibble of a byte is the earlier value.
TEST(Mxfp4, BlocksDecodeLowNibbleFirstEachTimesItsBlocksScale) {
  std::vector<unsigned char> blocks(2 * 64 / 2, 0x00), scales = {127, 125, 128, 130};
  blocks[0] = 0x7A;       // row 0, values 0 and 1: −1 then 6, × 2^0
  blocks[16] = 0x21;      // row 0, values 32 and 33: 0.5 then 1, × 2^−2
  blocks[32 + 31] = 0xF3; // row 1, values 62 and 63: 1.5 then −6, × 2^3
  WeightTensor w;
  w.type = WeightType::MXFP4;
  w.rows = 2;
  w.cols = 64;
  w.data = reinterpret_cast<const char*>(blocks.data());
  w.scales = reinterpret_cast<const char*>(scales.data());
  std::vector<float> all(128);
  read_rows(w, 0, 2, all.data());
  EXPECT_EQ(all[0], -1.0f);
  EXPECT_EQ(all[1], 6.0f);
  EXPECT_EQ(all[2], 0.0f);
  EXPECT_EQ(all[32], 0.125f);
  EXPECT_EQ(all[33], 0.25f);
  EXPECT_EQ(all[64 + 62], 12.0f);
  EXPECT_EQ(all[64 + 63], -48.0f);
  // The same values by columns, as a layer in × out reads them.
  std::vector<float> cols(2 * 2);
  read_cols(w, 62, 2, cols.data());
  EXPECT_EQ(cols[0], 0.0f);
  EXPECT_EQ(cols[2], 12.0f);
  EXPECT_EQ(cols[3], -48.0f);
  std::vector<float> row1(64);
  read_rows(w, 1, 1, row1.data());
  EXPECT_EQ(row1[63], -48.0f);
}

// E4M3FN by hand: sign, 4 exponent bits (bias 7), 3 mantissa bits; exponent 0 subnormal; only
// S.1111.111 is NaN (no infinities), so 0x7E is the largest, 448.
TEST(Fp8, E4M3BytesDecodeAsTheFormatSays) {
  EXPECT_EQ(fp8_e4m3(0x38), 1.0f);
  EXPECT_EQ(fp8_e4m3(0xC0), -2.0f);
  EXPECT_EQ(fp8_e4m3(0x7E), 448.0f);
  EXPECT_EQ(fp8_e4m3(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(fp8_e4m3(0x4B), 5.5f);
  EXPECT_TRUE(std::signbit(fp8_e4m3(0x80)) && fp8_e4m3(0x80) == 0.0f);
  EXPECT_TRUE(std::isnan(fp8_e4m3(0x7F)) && std::isnan(fp8_e4m3(0xFF)));
}

// A 130 × 3 matrix: two row blocks (the second of two rows), one column block; each value its
// byte times its block's scale, by rows and by columns.
TEST(Fp8, EachBlockOf128By128TakesItsOwnScale) {
  std::vector<unsigned char> bytes(130 * 3, 0x38);  // 1.0 everywhere
  bytes[129 * 3 + 2] = 0xC0;                        // −2 in the last row
  const float scales[2] = {0.5f, 3.0f};
  WeightTensor w;
  w.type = WeightType::F8E4M3;
  w.rows = 130;
  w.cols = 3;
  w.data = reinterpret_cast<const char*>(bytes.data());
  w.scales = reinterpret_cast<const char*>(scales);
  std::vector<float> rows(130 * 3);
  read_rows(w, 0, 130, rows.data());
  EXPECT_EQ(rows[0], 0.5f);
  EXPECT_EQ(rows[127 * 3 + 1], 0.5f);
  EXPECT_EQ(rows[128 * 3], 3.0f);
  EXPECT_EQ(rows[129 * 3 + 2], -6.0f);
  std::vector<float> last(130);
  read_cols(w, 2, 1, last.data());
  EXPECT_EQ(last[0], 0.5f);
  EXPECT_EQ(last[129], -6.0f);
}

AttentionInput random_input(int T, int heads, int dh, std::uint64_t seed) {
  AttentionInput in;
  in.Q = gaussian_matrix(T, heads * dh, 1.0, mix_seed(seed, 1));
  in.K = gaussian_matrix(T, heads * dh, 1.0, mix_seed(seed, 2));
  in.V = gaussian_matrix(T, heads * dh, 1.0, mix_seed(seed, 3));
  in.heads = heads;
  in.causal = true;
  in.key_valid.assign(static_cast<std::size_t>(T), 1);
  return in;
}

// A sink logit s beside the keys: weight_j = e^(score_j) / (Σ e^(score) + e^s), and the share the
// row gives the sink is the rest. The first query sees one key: its weight is σ(score − s).
TEST(LearnedSinks, EachRowsWeightsAndItsSinkShareSumToOne) {
  AttentionInput in = random_input(9, 2, 8, 7);
  in.sinks = {0.5f, -3.0f};
  const AttentionOutput out = attention_cpu(in);
  ASSERT_EQ(out.sink_share.size(), 2u);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 9; ++i)
      EXPECT_NEAR(out.weights[static_cast<std::size_t>(h)].row(i).sum() + out.sink_share[static_cast<std::size_t>(h)](i), 1.0, 1e-6);
  const double s00 = out.scores[0](0, 0);
  EXPECT_NEAR(out.weights[0](0, 0), 1.0 / (1.0 + std::exp(0.5 - s00)), 1e-6);
  EXPECT_GT(out.sink_share[0].mean(), out.sink_share[1].mean()) << "the larger sink logit takes more";
  // The blocked path (no matrices kept) gives the same context.
  EXPECT_LE((attention_context_cpu(in) - out.context).cwiseAbs().maxCoeff(), 1e-5);
  in.sinks.clear();
  EXPECT_TRUE(attention_cpu(in).sink_share.empty());
}

// Chunks of 3 over 8 tokens: query 4 sees keys 3 and 4 only; masked cells are exactly 0 and −∞.
TEST(ChunkedAttention, AQuerySeesTheKeysOfItsOwnChunkOnly) {
  AttentionInput in = random_input(8, 2, 8, 11);
  in.chunk = 3;
  const AttentionOutput out = attention_cpu(in);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const bool visible = j <= i && j / 3 == i / 3;
      EXPECT_EQ(in.masked(i, j), !visible) << i << "," << j;
      EXPECT_EQ(out.weights[1](i, j) > 0.0f, visible) << i << "," << j;
      if (!visible) EXPECT_TRUE(std::isinf(out.scores[1](i, j))) << i << "," << j;
    }
  EXPECT_FLOAT_EQ(out.weights[0](3, 3), 1.0f) << "the first token of a chunk sees itself alone";
  EXPECT_LE((attention_context_cpu(in) - out.context).cwiseAbs().maxCoeff(), 1e-5);
  AttentionInput sinks_too = in;
  sinks_too.sinks = {1.0f, 2.0f};
  EXPECT_LE((attention_context_cpu(sinks_too) - attention_cpu(sinks_too).context).cwiseAbs().maxCoeff(), 1e-5);
}

TEST(Llama4Temperature, GrowsLogarithmicallyWithThePositionPastEachFloorScale) {
  TransformerConfig c;
  c.floor_scale = 8192.0;
  c.attn_scale = 0.1;
  EXPECT_DOUBLE_EQ(query_temperature(c, 0), 1.0);
  EXPECT_DOUBLE_EQ(query_temperature(c, 8190), 1.0);
  EXPECT_DOUBLE_EQ(query_temperature(c, 8191), 1.0 + 0.1 * std::log(2.0));  // (8191 + 1) / 8192 = 1
  EXPECT_DOUBLE_EQ(query_temperature(c, 3 * 8192 - 1), 1.0 + 0.1 * std::log(4.0));
}

}  // namespace
}  // namespace poslab

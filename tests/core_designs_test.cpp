// The pieces of 2025–26's positional designs, each against numbers worked out by hand: MXFP4
// blocks (GPT-OSS's experts) decoded value by value, learned sinks taking their share of a row,
// and Llama 4's chunks masking what lies outside a query's chunk, on both CPU paths; Gemma 4's
// layer shapes (wider full-attention heads, proportional RoPE, KV sharing) as its config says.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "base/random.hpp"
#include "core/attention/attention.hpp"
#include "core/model/checkpoint.hpp"
#include "core/model/forward.hpp"
#include "core/model/transformer_config.hpp"
#include "core/model/position_probe.hpp"
#include "core/model/position_tables.hpp"

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

// StreamingLLM's cache, first 2 + last 3 over 9 tokens: query 7 sees keys 0, 1, 5, 6 and 7.
TEST(StreamingAttention, AQuerySeesTheFirstKAndTheLastWKeysOnly) {
  AttentionInput in = random_input(9, 2, 8, 23);
  in.causal = true;
  in.streaming = Streaming{2, 3};
  const AttentionOutput out = attention_cpu(in);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      const bool visible = j <= i && (j < 2 || i - j < 3);
      EXPECT_EQ(in.masked(i, j), !visible) << i << "," << j;
      EXPECT_EQ(out.weights[1](i, j) > 0.0f, visible) << i << "," << j;
      if (!visible) EXPECT_EQ(out.weights[1](i, j), 0.0f);
    }
  EXPECT_TRUE(in.cpu_only()) << "the shaders know no streaming mask";
  EXPECT_LE((attention_context_cpu(in) - out.context).cwiseAbs().maxCoeff(), 1e-5);
  in.streaming = Streaming{0, 9};  // a window as long as the sentence: plain causal attention
  AttentionInput plain = in;
  plain.streaming = {};
  EXPECT_LE((attention_cpu(in).context - attention_cpu(plain).context).cwiseAbs().maxCoeff(), 0.0f);
  for (const char* bad : {"2", "2,0", "-1,4", "a,b", "2,3,4", ""}) EXPECT_FALSE(parse_streaming(bad)) << bad;
  ASSERT_TRUE(parse_streaming("4,256"));
  EXPECT_EQ(*parse_streaming("4,256"), (Streaming{4, 256}));
  EXPECT_EQ(to_string(*parse_streaming("none")), "none");
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

// A Gemma 4 text config of six layers (five sliding, the last full): heads of 8 on the sliding
// layers, 32 on the full one, proportional RoPE turning a quarter of its pairs.
std::string gemma4_config(const std::string& extra = "") {
  return R"({"architectures": ["Gemma4ForCausalLM"], "model_type": "gemma4_text", "vocab_size": 50, "hidden_size": 16,
    "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "global_head_dim": 32,
    "intermediate_size": 24, "sliding_window": 4, "hidden_size_per_layer_input": 0,
    "rope_parameters": {"full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1000000.0},
                        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}})" + extra + "}";
}

TEST(Gemma4Shapes, FullLayersHaveTheirOwnHeadsAndTurnAShareOfTheirPairs) {
  auto c = parse_transformer_config(gemma4_config(R"(, "attention_k_eq_v": true, "num_global_key_value_heads": 1, "num_kv_shared_layers": 2,
    "use_double_wide_mlp": true, "layer_types": ["sliding_attention", "sliding_attention", "full_attention", "sliding_attention",
    "sliding_attention", "sliding_attention"])"), "config.json");
  ASSERT_TRUE(c) << c.error();
  EXPECT_TRUE(c->is_local(0) && !c->is_local(2) && c->is_local(4) && !c->is_local(5)) << "the last layer is full whatever layer_types says";
  const auto sliding = c->shape(0), full = c->shape(5);
  EXPECT_EQ(sliding.head_dim, 8);
  EXPECT_EQ(sliding.kv_heads, 2);
  EXPECT_EQ(sliding.rotary_dim, 8);
  EXPECT_DOUBLE_EQ(sliding.rope_fraction, 1.0);
  EXPECT_EQ(full.head_dim, 32);
  EXPECT_EQ(full.kv_heads, 1);
  EXPECT_EQ(c->global_rotating_pairs, 4) << "⌊0.25 · 32 / 2⌋";
  EXPECT_DOUBLE_EQ(full.rope_fraction, 4.0 / 16.0);
  EXPECT_EQ(dimension(*c, Dim::QueryWidth, 5), 4 * 32);
  EXPECT_EQ(dimension(*c, Dim::KvWidth, 5), 32);
  EXPECT_EQ(dimension(*c, Dim::KvWidth, 0), 16);
  // The last two layers reuse the last earlier layer of their kind; their MLPs are twice as wide.
  EXPECT_EQ(c->kv_source(3), -1);
  EXPECT_EQ(c->kv_source(4), 3);
  EXPECT_EQ(c->kv_source(5), 2);
  EXPECT_EQ(c->shape(4).ffn, 48);
  EXPECT_EQ(c->shape(3).ffn, 24);
  // The full layer's RoPE: the first four pairs turn at base^(−2i/32), the other twelve not at all.
  const RopeFrequencies f = model_rope_frequencies(*c, {}, 8, 5);
  ASSERT_EQ(f.thetas.size(), 16u);
  for (std::size_t i = 0; i < 16; ++i) EXPECT_DOUBLE_EQ(f.thetas[i], i < 4 ? std::pow(1e6, -2.0 * i / 32.0) : 0.0) << i;
  PositionIntervention eight;
  eight.rotary_dim = 8;
  EXPECT_EQ(model_rope_frequencies(*c, eight, 8, 5).thetas[3], f.thetas[3]);
  EXPECT_EQ(model_rope_frequencies(*c, eight, 8, 0).thetas.size(), 4u) << "--rotary-dim acts on the full layers alone";
}

// One transformers revision saves the full layers' heads as per_layer_config instead.
TEST(Gemma4Shapes, PerLayerConfigGivesTheFullLayersHeads) {
  auto c = parse_transformer_config(gemma4_config(R"(, "global_head_dim": null, "per_layer_config": {"5": {"head_dim": 24, "num_key_value_heads": 1}})"),
                                    "config.json");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->shape(5).head_dim, 24);
  EXPECT_EQ(c->shape(5).kv_heads, 1);
  EXPECT_EQ(c->shape(0).head_dim, 8);
  for (const char* bad : {R"({"2": {"head_dim": 24}})", R"({"5": {"head_dim": 24, "sliding_window": 3}})"}) {
    auto refused = parse_transformer_config(gemma4_config(std::string(R"(, "per_layer_config": )") + bad), "config.json");
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().find("per_layer_config"), std::string::npos) << refused.error();
  }
  auto disagree = parse_transformer_config(gemma4_config(R"(, "per_layer_config": {"5": {"head_dim": 24}})"), "config.json");
  ASSERT_FALSE(disagree) << "global_head_dim 32 and per_layer_config's 24";
  EXPECT_NE(disagree.error().find("disagree"), std::string::npos) << disagree.error();
}

TEST(Gemma4Shapes, ConfigsTransformersCannotRunAreRefusedByName) {
  const struct {
    const char* extra;
    const char* says;
  } cases[] = {
      {R"(, "attention_k_eq_v": true)", "num_global_key_value_heads"},
      {R"(, "num_kv_shared_layers": 6)", "num_kv_shared_layers"},
      {R"(, "num_kv_shared_layers": 1)", "no earlier layer is of its kind"},
      {R"(, "global_head_dim": 7)", "global_head_dim"},
  };
  for (const auto& c : cases) {
    auto parsed = parse_transformer_config(gemma4_config(c.extra), "config.json");
    ASSERT_FALSE(parsed) << c.extra;
    EXPECT_NE(parsed.error().find(c.says), std::string::npos) << parsed.error();
  }
  // Default RoPE on full layers wider than the sliding ones: transformers' cos and sin would not fit them.
  std::string flat = gemma4_config();
  flat.replace(flat.find(R"("rope_type": "proportional")"), 27, R"("rope_type": "default")");
  auto parsed = parse_transformer_config(flat, "config.json");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().find("proportional"), std::string::npos) << parsed.error();
  // "proportional" with a share below 1 belongs to Gemma 4.
  auto llama = parse_transformer_config(R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2,
    "num_attention_heads": 2, "intermediate_size": 24, "rope_parameters": {"rope_type": "proportional", "partial_rotary_factor": 0.5, "rope_theta": 10000.0}})",
                                        "config.json");
  ASSERT_FALSE(llama);
  EXPECT_NE(llama.error().find("Gemma 4"), std::string::npos) << llama.error();
}

// The ridge probe on features made by hand: one that holds the position (with noise beside it)
// is read back nearly exactly on held-out rows; noise alone gives nothing (R² near 0 or below).
TEST(PositionProbe, ReadsThePositionWhereTheFeaturesHoldItAndNotWhereTheyDoNot) {
  Rng rng(5);
  const int rows = 400, width = 16;
  Matrix holds(rows, width), noise(rows, width);
  std::vector<double> positions;
  std::vector<std::uint8_t> train;
  for (int r = 0; r < rows; ++r) {
    const int t = r % 20;
    positions.push_back(t);
    train.push_back((r / 20) % 2 == 0 ? 1 : 0);  // whole "sentences" of 20 alternate
    for (int j = 0; j < width; ++j) {
      noise(r, j) = static_cast<float>(rng.normal());
      holds(r, j) = static_cast<float>(rng.normal());
    }
    holds(r, 3) = static_cast<float>(0.5 * t + 0.01 * rng.normal());
  }
  auto good = probe_positions(holds, positions, train);
  auto none = probe_positions(noise, positions, train);
  ASSERT_TRUE(good && none);
  EXPECT_GT(good->r2, 0.99);
  EXPECT_LT(good->mean_abs_error, 0.3);
  EXPECT_LT(none->r2, 0.2);
  EXPECT_GT(none->mean_abs_error, 3.0);
  EXPECT_FALSE(probe_positions(holds, positions, std::vector<std::uint8_t>(rows, 1))) << "nothing held out to score";
}

}  // namespace
}  // namespace poslab

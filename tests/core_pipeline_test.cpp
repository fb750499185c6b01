// Every encoding and bias as the pipeline applies them: additive tables enter the inputs, RoPE
// variants and biases agree with the standalone core functions (themselves checked against
// NumPy), and cross-attention has the right shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "core/encodings/additive.hpp"
#include "core/encodings/bias.hpp"
#include "core/attention/pipeline.hpp"
#include "base/random.hpp"
#include "core/encodings/rope_nd.hpp"
#include "core/encodings/rope_scaling.hpp"

using namespace poslab;

namespace {

EmbeddingTable table16() {
  const std::vector<std::string> words = {"the", "dog", "chased", "another", "cat", "sat", "on", "mat", "."};
  return EmbeddingTable(words, gaussian_matrix(static_cast<int>(words.size()), 16, 1.0, 3), "test");
}

ModelSettings settings(EncodingKind e) {
  ModelSettings s;
  s.sentence = "the dog chased another dog";
  s.encoding = e;
  s.heads = 2;
  return s;
}

PipelineInput prepared(const ModelSettings& s) {
  auto in = prepare_input(s, table16());
  EXPECT_TRUE(in.ok()) << in.error();
  return in.ok() ? std::move(*in) : PipelineInput{};
}

Results computed(const ModelSettings& s) {
  CpuBackend cpu;
  auto r = run_pipeline(s, table16(), cpu, false);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? std::move(*r) : Results{};
}

}  // namespace

TEST(PipelineEncodings, AdditiveTablesAreAddedToTheEmbeddings) {
  const Matrix plain = prepared(settings(EncodingKind::None)).problem.Xq;
  struct Case { EncodingKind kind; Matrix expected; };
  const Case cases[] = {
      {EncodingKind::Integer, integer_encoding(5, 16)},
      {EncodingKind::Normalized, normalized_encoding(5, 16, 5)},
      {EncodingKind::Binary, binary_encoding(5, 16, BinaryValues::ZeroOne)},
      {EncodingKind::Sinusoidal, sinusoidal_encoding(5, 16, 10000.0)},
      {EncodingKind::Learned, learned_table(512, 16, 1.0, mix_seed(0, 5)).topRows(5)},
  };
  for (const Case& c : cases) {
    const Matrix X = prepared(settings(c.kind)).problem.Xq;
    EXPECT_LT((X - plain - c.expected).cwiseAbs().maxCoeff(), 1e-5) << to_string(c.kind);
  }
  // Hand check: integer positions add p to every component; binary puts bit 0 of p first.
  const Matrix integer = prepared(settings(EncodingKind::Integer)).problem.Xq - plain;
  EXPECT_FLOAT_EQ(integer(3, 7), 3.0f);
  const Matrix binary = prepared(settings(EncodingKind::Binary)).problem.Xq - plain;
  EXPECT_FLOAT_EQ(binary(3, 0), 1.0f);
  EXPECT_FLOAT_EQ(binary(3, 1), 1.0f);
  EXPECT_FLOAT_EQ(binary(3, 2), 0.0f);
}

TEST(PipelineEncodings, LearnedTableIsUndefinedPastTmax) {
  ModelSettings s = settings(EncodingKind::Learned);
  s.learned_max = 4;
  auto r = prepare_input(s, table16());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("4 positions"), std::string::npos) << r.error();
}

TEST(PipelineEncodings, NormalizedCodesDependOnTheSequenceLength) {
  // Property 1 of seed 000 fails: position 2 gets another code when the sentence is longer.
  ModelSettings s = settings(EncodingKind::Normalized);
  const Matrix short_pe = additive_encoding(s, 5, 16).value();
  const Matrix long_pe = additive_encoding(s, 9, 16).value();
  EXPECT_NE(short_pe(2, 0), long_pe(2, 0));
}

TEST(PipelineRope, ScalingAndPRopeShapeTheFrequencies) {
  ModelSettings s = settings(EncodingKind::Rope);
  s.scaling.type = RopeScalingType::Yarn;
  s.scaling.factor = 4.0;
  s.scaling.original_max_position = 64;
  const RopeSpec spec = rope_spec(s, 2, 8, 5, 5).value();
  const RopeFrequencies f = rope_frequencies(8, 10000.0, s.scaling, 5);
  ASSERT_EQ(spec.pairs, 4);
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(spec.theta_x[static_cast<std::size_t>(4 + i)], f.thetas[static_cast<std::size_t>(i)]);
  EXPECT_NEAR(spec.scale, 0.1 * std::log(4.0) + 1.0, 1e-12);

  s.scaling = {};
  s.rope_fraction = 0.5;  // the two lowest-frequency pairs of four stay still
  const RopeSpec p_rope = rope_spec(s, 2, 8, 5, 5).value();
  EXPECT_GT(p_rope.theta_x[1], 0.0);
  EXPECT_EQ(p_rope.theta_x[2], 0.0);
  EXPECT_EQ(p_rope.theta_x[3], 0.0);
}

TEST(PipelineRope, NoRotatingPairsIsTheSameAsNoPositions) {
  ModelSettings s = settings(EncodingKind::Rope);
  s.rope_fraction = 0.0;
  const Results r = computed(s);
  const Results none = computed(settings(EncodingKind::None));
  EXPECT_LT((r.attention.weights[0] - none.attention.weights[0]).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(PipelineRope, PartialRotaryLeavesTheRestOfTheHead) {
  ModelSettings s = settings(EncodingKind::Rope);
  s.rotary_dim = 4;
  const PipelineInput in = prepared(s);
  EXPECT_EQ(in.problem.rope.pairs, 2);
  const AttentionInput projected = project(in.problem);
  const Matrix Q = in.problem.Xq * in.problem.Wq;
  EXPECT_LT((projected.Q.middleCols(4, 4) - Q.middleCols(4, 4)).cwiseAbs().maxCoeff(), 1e-6);  // head 0, dims 4–7
  EXPECT_GT((projected.Q.middleCols(0, 4) - Q.middleCols(0, 4)).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(PipelineRope, TwoDimensionalAxialMatchesTheGridFunction) {
  ModelSettings s = settings(EncodingKind::Rope);
  s.grid_width = 3;
  s.grid_height = 2;
  s.sentence = "the dog chased another cat sat";
  const PipelineInput in = prepared(s);
  const AttentionInput projected = project(in.problem);
  Matrix expected = (in.problem.Xq * in.problem.Wq).leftCols(8);  // head 0
  const auto grid = patch_grid(3, 2, false);
  apply_rope_axial(expected, grid, 10000.0);
  EXPECT_LT((projected.Q.leftCols(8) - expected).cwiseAbs().maxCoeff(), 1e-5);
}

TEST(PipelineRope, TwoDimensionalGridMustHoldTheTokens) {
  ModelSettings s = settings(EncodingKind::Rope);
  s.grid_width = 2;
  s.grid_height = 2;
  auto r = prepare_input(s, table16());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("do not fit on a 2×2 grid"), std::string::npos) << r.error();
}

TEST(PipelineBias, AlibiMatchesTheMatrixForm) {
  for (bool causal : {true, false}) {
    ModelSettings s = settings(EncodingKind::None);
    s.bias = BiasKind::Alibi;
    s.causal = causal;
    s.heads = 4;
    const Matrix rb = relative_bias(s, 4, 7, 7);
    const auto slopes = alibi_slopes(4);
    for (int h = 0; h < 4; ++h) {
      const Matrix B = alibi_bias(7, slopes[static_cast<std::size_t>(h)], causal ? AlibiForm::Causal : AlibiForm::Symmetric);
      for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j)
          if (!causal || j <= i) EXPECT_FLOAT_EQ(rb(h, j - i + 6), B(i, j)) << h << " " << i << " " << j;
    }
  }
}

TEST(PipelineBias, T5MatchesTheBucketTable) {
  for (bool causal : {true, false}) {
    ModelSettings s = settings(EncodingKind::None);
    s.bias = BiasKind::T5;
    s.causal = causal;
    s.buckets = 8;
    s.max_distance = 20;
    const Matrix rb = relative_bias(s, 2, 30, 30);
    const Matrix table = t5_bias_table(2, 8, 1.0, mix_seed(0, 6));
    for (int h = 0; h < 2; ++h) {
      const Matrix B = t5_bias(30, table, h, !causal, 8, 20);
      for (int i = 0; i < 30; ++i)
        for (int j = 0; j < 30; ++j) EXPECT_FLOAT_EQ(rb(h, j - i + 29), B(i, j));
    }
  }
}

TEST(PipelineBias, BiasEntersTheScores) {
  ModelSettings s = settings(EncodingKind::None);
  const Results plain = computed(s);
  s.bias = BiasKind::Alibi;
  const Results alibi = computed(s);
  const double slope = alibi_slopes(2)[0];
  // Symmetric ALiBi: score(0, 3) drops by slope·3.
  EXPECT_NEAR(alibi.attention.scores[0](0, 3), plain.attention.scores[0](0, 3) - slope * 3.0, 1e-5);
}

TEST(PipelineBias, ShawChangesScoresAndOutputs) {
  ModelSettings s = settings(EncodingKind::None);
  const Results plain = computed(s);
  s.bias = BiasKind::Shaw;
  s.clip = 2;
  const Results shaw = computed(s);
  EXPECT_GT((shaw.attention.scores[0] - plain.attention.scores[0]).cwiseAbs().maxCoeff(), 1e-3);
  // With relative information the two dogs no longer get the same output.
  EXPECT_FALSE(compare_outputs(shaw.attention.output, 1, 4).identical());
}

TEST(PipelineCross, KeysComeFromTheOtherSentence) {
  ModelSettings s = settings(EncodingKind::Rope);
  s.cross_sentence = "the cat sat on the mat .";
  const Results r = computed(s);
  EXPECT_EQ(r.tokens.size(), 5u);
  ASSERT_EQ(r.key_tokens.size(), 7u);
  EXPECT_EQ(r.key_tokens[1].text, "cat");
  EXPECT_EQ(r.attention.weights[0].rows(), 5);
  EXPECT_EQ(r.attention.weights[0].cols(), 7);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(r.attention.weights[1].row(i).sum(), 1.0f, 1e-5f);
  s.causal = true;
  auto bad = prepare_input(s, table16());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("no causal mask"), std::string::npos);
}

TEST(PipelineSettings, BadValuesAreClearErrors) {
  ModelSettings s = settings(EncodingKind::Rope);
  s.rotary_dim = 5;
  EXPECT_NE(prepare_input(s, table16()).error().find("rotary-dim must be an even number"), std::string::npos);
  s.rotary_dim = 0;
  s.rope_fraction = 1.5;
  EXPECT_NE(prepare_input(s, table16()).error().find("rope-fraction"), std::string::npos);
  s.rope_fraction = 1.0;
  s.scaling.type = RopeScalingType::Yarn;
  s.scaling.factor = 0.5;
  EXPECT_FALSE(prepare_input(s, table16()).ok());
}

TEST(PipelineGroupedQuery, KeyValueHeadsAreSharedWithinAGroup) {
  ModelSettings s = settings(EncodingKind::None);
  s.heads = 4;  // d = 16: heads of width 4
  s.kv_heads = 2;
  const PipelineInput in = prepared(s);
  const AttentionInput projected = project(in.problem);
  // Independently: key/value head g is the g-th block of four columns of the seeded draws.
  const Matrix wk = gaussian_matrix(16, 16, s.sigma, mix_seed(s.seed, 2));
  const Matrix wv = gaussian_matrix(16, 16, s.sigma, mix_seed(s.seed, 3));
  for (int h = 0; h < 4; ++h) {
    const int g = h / 2;  // query heads 0, 1 read group 0; heads 2, 3 read group 1
    const Matrix k = in.problem.Xkv * wk.middleCols(4 * g, 4);
    const Matrix v = in.problem.Xkv * wv.middleCols(4 * g, 4);
    EXPECT_LT((projected.K.middleCols(4 * h, 4) - k).cwiseAbs().maxCoeff(), 1e-5f) << "head " << h;
    EXPECT_LT((projected.V.middleCols(4 * h, 4) - v).cwiseAbs().maxCoeff(), 1e-5f) << "head " << h;
  }
  // The queries keep one projection per head.
  const Matrix wq = gaussian_matrix(16, 16, s.sigma, mix_seed(s.seed, 1));
  EXPECT_LT((projected.Q - in.problem.Xq * wq).cwiseAbs().maxCoeff(), 1e-5f);
}

TEST(PipelineGroupedQuery, RopeRotatesTheSharedKeysAlikeAndOneGroupPerHeadIsMultiHead) {
  ModelSettings s = settings(EncodingKind::Rope);
  s.heads = 4;
  s.kv_heads = 2;
  const AttentionInput projected = project(prepared(s).problem);
  EXPECT_LT((projected.K.middleCols(0, 4) - projected.K.middleCols(4, 4)).cwiseAbs().maxCoeff(), 1e-6f);
  EXPECT_GT((projected.K.middleCols(0, 4) - projected.K.middleCols(8, 4)).cwiseAbs().maxCoeff(), 1e-3f);
  const Results gqa = computed(s);
  s.kv_heads = 4;  // as many key/value heads as query heads: multi-head attention, exactly
  const Results four = computed(s);
  s.kv_heads = 0;
  const Results mha = computed(s);
  EXPECT_EQ((four.attention.output - mha.attention.output).cwiseAbs().maxCoeff(), 0.0f);
  EXPECT_GT((gqa.attention.output - mha.attention.output).cwiseAbs().maxCoeff(), 1e-4f);
  // GQA keeps self-attention's blindness to order: no positions, no mask, the two dogs agree.
  s.kv_heads = 1;
  s.encoding = EncodingKind::None;
  EXPECT_TRUE(compare_outputs(computed(s).attention.output, 1, 4).identical());
}

TEST(PipelineGroupedQuery, KeyValueHeadsMustDivideTheHeadsAndNeedRandomProjections) {
  ModelSettings s = settings(EncodingKind::Rope);
  s.heads = 4;
  s.kv_heads = 3;
  EXPECT_NE(prepare_input(s, table16()).error().find("must divide the 4 query heads"), std::string::npos);
  s.kv_heads = 2;
  s.projection = ProjectionKind::Identity;
  EXPECT_NE(prepare_input(s, table16()).error().find("needs random projections"), std::string::npos);
}

// A table without a vocabulary is indexed by token id: a typed sentence finds none of its words.
TEST(Pipeline, SaysSoWhenMostWordsAreMissing) {
  Matrix m = Matrix::Ones(4, 8);
  EmbeddingTable by_id({"0", "1", "2", "3"}, m, "ids.npy");
  ModelSettings s;
  s.sentence = "The dog chased another dog";
  s.heads = 2;
  CpuBackend cpu;
  auto r = run_pipeline(s, by_id, cpu, false);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("5 of the sentence's 5 words"), std::string::npos) << r->notes[0];
  EXPECT_NE(r->notes[0].find("--vocab"), std::string::npos);
  s.sentence = "1 2 3 dog";  // three of four found: no note
  r = run_pipeline(s, by_id, cpu, false);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->notes.empty());
}

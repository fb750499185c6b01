// Attention on the CPU: against NumPy, its invariants, permutation equivariance and the dog demo.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/attention/attention.hpp"
#include "core/attention/pipeline.hpp"
#include "base/random.hpp"
#include "reference.hpp"

using namespace poslab;
using poslab::testing::reference;

namespace {

AttentionInput reference_input(bool causal, std::vector<std::uint8_t> valid) {
  AttentionInput in;
  in.Q = reference("attn_Q").cast<float>();
  in.K = reference("attn_K").cast<float>();
  in.V = reference("attn_V").cast<float>();
  in.heads = 2;
  in.causal = causal;
  in.key_valid = std::move(valid);
  return in;
}

// A small table: every word of the test sentences with a seeded vector of width 12.
EmbeddingTable small_table() {
  const std::vector<std::string> words = {"the", "dog", "chased", "another", "cat", "sat", "on", "mat", "."};
  return EmbeddingTable(words, gaussian_matrix(static_cast<int>(words.size()), 12, 1.0, 99), "test");
}

ModelSettings dog_settings(EncodingKind encoding, bool causal) {
  ModelSettings s;
  s.sentence = "The dog chased another dog";
  s.encoding = encoding;
  s.heads = 4;
  s.causal = causal;
  s.sigma = 0.5;
  return s;
}

Results run_cpu(const ModelSettings& s, const EmbeddingTable& table) {
  CpuBackend cpu;
  auto r = run_pipeline(s, table, cpu, false);
  EXPECT_TRUE(r.ok()) << r.error();
  return *r;
}

}  // namespace

TEST(Attention, MatchesNumpyReference) {
  struct Case { const char* name; bool causal; std::vector<std::uint8_t> valid; };
  for (const Case& c : {Case{"plain", false, {1, 1, 1, 1}}, Case{"causal", true, {1, 1, 1, 1}}, Case{"padded", false, {1, 1, 1, 0}}}) {
    const AttentionOutput out = attention_cpu(reference_input(c.causal, c.valid));
    const Eigen::MatrixXd& w = reference(std::string("attn_") + c.name + "_weights");
    for (int h = 0; h < 2; ++h)
      EXPECT_LT((out.weights[static_cast<std::size_t>(h)].cast<double>() - w.middleRows(h * 4, 4)).cwiseAbs().maxCoeff(), 1e-6) << c.name;
    EXPECT_LT((out.context.cast<double>() - reference(std::string("attn_") + c.name + "_context")).cwiseAbs().maxCoeff(), 1e-6) << c.name;
  }
}

TEST(Attention, RowsSumToOneAndMaskedWeightsAreExactlyZero) {
  AttentionInput in;
  const int T = 37, d = 32;
  in.Q = gaussian_matrix(T, d, 1.0, 1);
  in.K = gaussian_matrix(T, d, 1.0, 2);
  in.V = gaussian_matrix(T, d, 1.0, 3);
  in.heads = 4;
  in.causal = true;
  in.key_valid.assign(T, 1);
  for (int t = 30; t < T; ++t) in.key_valid[static_cast<std::size_t>(t)] = 0;
  const AttentionOutput out = attention_cpu(in);
  for (int h = 0; h < 4; ++h) {
    const Matrix& A = out.weights[static_cast<std::size_t>(h)];
    for (int i = 0; i < T; ++i) {
      EXPECT_NEAR(A.row(i).sum(), 1.0f, 1e-5f);
      for (int j = 0; j < T; ++j)
        if (in.masked(i, j)) {
          EXPECT_EQ(A(i, j), 0.0f);
          EXPECT_TRUE(std::isinf(out.scores[static_cast<std::size_t>(h)](i, j)));
        } else {
          EXPECT_GT(A(i, j), 0.0f);
        }
    }
  }
}

TEST(Pipeline, PermutingTokensWithoutPositionsPermutesOutputs) {
  const EmbeddingTable table = small_table();
  ModelSettings s = dog_settings(EncodingKind::None, false);
  s.sentence = "the cat sat on the mat .";
  const Results a = run_cpu(s, table);
  s.sentence = ". mat the on sat cat the";  // reversed: token t moves to 6 − t
  const Results b = run_cpu(s, table);
  ASSERT_EQ(a.attention.output.rows(), 7);
  for (int t = 0; t < 7; ++t) EXPECT_LT((a.attention.output.row(t) - b.attention.output.row(6 - t)).cwiseAbs().maxCoeff(), 1e-5) << t;
  // With positions the same permutation does not simply permute the outputs.
  s.encoding = EncodingKind::Rope;
  s.sentence = "the cat sat on the mat .";
  const Results c = run_cpu(s, table);
  s.sentence = ". mat the on sat cat the";
  const Results e = run_cpu(s, table);
  double worst = 0;
  for (int t = 0; t < 7; ++t) worst = std::max(worst, static_cast<double>((c.attention.output.row(t) - e.attention.output.row(6 - t)).cwiseAbs().maxCoeff()));
  EXPECT_GT(worst, 1e-3);
}

TEST(DogDemo, IdenticalWithoutPositionsAndMask) {
  const Results r = run_cpu(dog_settings(EncodingKind::None, false), small_table());
  const auto pair = first_repeated_token(r.tokens);
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(pair->first, 1);
  EXPECT_EQ(pair->second, 4);
  const auto c = compare_outputs(r.attention.output, 1, 4);
  EXPECT_TRUE(c.identical()) << c.max_abs_diff << " of " << c.scale;
  EXPECT_LT(c.max_abs_diff, 1e-5 * c.scale);
  EXPECT_GT(c.scale, 0.1);
  EXPECT_NEAR(c.cosine, 1.0, 1e-9);
}

TEST(DogDemo, DifferentWithSinusoidOrRope) {
  for (auto enc : {EncodingKind::Sinusoidal, EncodingKind::Rope}) {
    const Results r = run_cpu(dog_settings(enc, false), small_table());
    const auto c = compare_outputs(r.attention.output, 1, 4);
    EXPECT_GT(c.max_abs_diff, 1e-3) << to_string(enc);
    EXPECT_FALSE(c.identical());
    EXPECT_LT(c.cosine, 0.99999) << to_string(enc);
  }
}

TEST(DogDemo, DifferentWithCausalMaskEvenWithoutPositions) {
  const Results r = run_cpu(dog_settings(EncodingKind::None, true), small_table());
  EXPECT_GT(compare_outputs(r.attention.output, 1, 4).max_abs_diff, 1e-3);
  EXPECT_FALSE(compare_outputs(r.attention.output, 1, 4).identical());
}

TEST(Pipeline, IdentityProjectionGivesEachHeadItsSlice) {
  ModelSettings s = dog_settings(EncodingKind::None, false);
  s.projection = ProjectionKind::Identity;
  const EmbeddingTable table = small_table();
  const Results r = run_cpu(s, table);
  // Q = K = V = X, so head 0's scores are the dot products of dimensions 0..2, scaled.
  const int dh = 3;
  const auto x1 = table.vectors().row(table.find("dog")).head(dh);
  const auto x2 = table.vectors().row(table.find("chased")).head(dh);
  EXPECT_NEAR(r.attention.scores[0](1, 2), x1.dot(x2) / std::sqrt(3.0f), 1e-5);
}

TEST(Pipeline, PaddingAppendsMaskedKeys) {
  ModelSettings s = dog_settings(EncodingKind::Rope, false);
  s.pad_to = 8;
  const Results r = run_cpu(s, small_table());
  ASSERT_EQ(r.tokens.size(), 8u);
  EXPECT_TRUE(r.tokens[6].padding);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(r.attention.weights[0](i, 7), 0.0f);
}

TEST(Pipeline, BadSettingsAreClearErrors) {
  const EmbeddingTable table = small_table();
  CpuBackend cpu;
  ModelSettings s = dog_settings(EncodingKind::Rope, false);
  s.heads = 5;  // 12 is not divisible by 5
  auto r = run_pipeline(s, table, cpu, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("must divide the embedding width 12"), std::string::npos) << r.error();
  s.heads = 4;
  s.sentence = "   ";
  r = run_pipeline(s, table, cpu, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("no tokens"), std::string::npos);
}

// A backend that always fails: the pipeline must fall back to the CPU and say so.
class BrokenBackend final : public AttentionBackend {
 public:
  std::string name() const override { return "broken GPU"; }
  Result<AttentionOutput> run(const AttentionProblem&) override { return Error{"shader failed to link"}; }
};

TEST(Pipeline, FailingBackendFallsBackToCpuWithANote) {
  BrokenBackend broken;
  auto r = run_pipeline(dog_settings(EncodingKind::Rope, true), small_table(), broken, true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->backend, "CPU (Eigen)");
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("shader failed to link"), std::string::npos);
  EXPECT_FALSE(r->max_diff_vs_cpu.has_value());
}

// The context-only path (blocks of queries, heads in parallel, causal blocks skipping the
// future) gives attention_cpu's context under every mask and bias, also when T_q ≠ T_k.
TEST(Attention, ContextOnlyPathMatchesTheFullOne) {
  for (int Tq : {1, 7, 300, 600})
    for (bool causal : {false, true}) {
      AttentionInput in;
      const int Tk = causal ? Tq : Tq + 13;
      in.Q = gaussian_matrix(Tq, 32, 1.0, 1);
      in.K = gaussian_matrix(Tk, 32, 1.0, 2);
      in.V = gaussian_matrix(Tk, 32, 1.0, 3);
      in.heads = 4;
      in.causal = causal;
      in.key_valid.assign(static_cast<std::size_t>(Tk), 1);
      in.key_valid[static_cast<std::size_t>(Tk - 1)] = 0;
      if (Tq > 1) in.relative_bias = gaussian_matrix(4, Tq + Tk - 1, 1.0, 4);
      EXPECT_LT((attention_context_cpu(in) - attention_cpu(in).context).cwiseAbs().maxCoeff(), 1e-5)
          << "T_q=" << Tq << " causal=" << causal;
    }
}

// Weights without scores (a model's heads figure): the softmax runs in place of the scores, and
// the weights and context are bitwise those of the run that keeps both, with no scores returned.
TEST(Attention, WeightsAloneAreTheSameWeightsWithoutTheScores) {
  AttentionInput in;
  in.Q = gaussian_matrix(50, 32, 1.0, 5);
  in.K = gaussian_matrix(50, 32, 1.0, 6);
  in.V = gaussian_matrix(50, 32, 1.0, 7);
  in.heads = 4;
  in.causal = true;
  in.key_valid.assign(50, 1);
  const AttentionOutput both = attention_cpu(in);
  in.keep.scores = false;
  const AttentionOutput weights = attention_cpu(in);
  ASSERT_EQ(weights.weights.size(), 4u);
  for (int h = 0; h < 4; ++h) {
    EXPECT_EQ(weights.scores[static_cast<std::size_t>(h)].size(), 0) << h;
    EXPECT_TRUE(weights.weights[static_cast<std::size_t>(h)] == both.weights[static_cast<std::size_t>(h)]) << h;
  }
  EXPECT_TRUE(weights.context == both.context);
}

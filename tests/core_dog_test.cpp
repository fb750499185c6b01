// The four cases of the dog demo on the shipped embeddings.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/attention/dog.hpp"

using namespace poslab;

TEST(DogCases, OnlyNoPositionsWithoutAMaskIsIdentical) {
  auto table = load_text_embeddings(std::string(POSLAB_ASSETS) + "/glove-wink-100d-10k.txt");
  ASSERT_TRUE(table.ok());
  ModelSettings s;  // "The dog chased another dog", 5 heads, random projections
  auto cases = dog_cases(s, *table);
  ASSERT_TRUE(cases.ok()) << cases.error();
  ASSERT_EQ(cases->size(), 4u);
  EXPECT_TRUE((*cases)[0].comparison.identical());
  for (std::size_t k = 1; k < 4; ++k) EXPECT_FALSE((*cases)[k].comparison.identical()) << (*cases)[k].name;
  EXPECT_EQ((*cases)[0].comparison.a, 1);
  EXPECT_EQ((*cases)[0].comparison.b, 4);
  s.sentence = "The cat sat on a mat";
  EXPECT_FALSE(dog_cases(s, *table).ok());
}

TEST(Permutation, ShuffledOrderIsAPermutationThatMoves) {
  for (std::uint64_t seed = 0; seed < 50; ++seed)
    for (int n : {2, 3, 5, 9}) {
      auto order = shuffled_order(n, seed);
      std::vector<int> sorted = order;
      std::sort(sorted.begin(), sorted.end());
      for (int k = 0; k < n; ++k) ASSERT_EQ(sorted[static_cast<std::size_t>(k)], k);
      bool moved = false;
      for (int k = 0; k < n; ++k) moved = moved || order[static_cast<std::size_t>(k)] != k;
      EXPECT_TRUE(moved) << n << " " << seed;
    }
}

TEST(Permutation, WithoutPositionsTheOutputsMoveWithTheirTokens) {
  auto table = load_text_embeddings(std::string(POSLAB_ASSETS) + "/glove-wink-100d-10k.txt");
  ASSERT_TRUE(table.ok());
  ModelSettings s;
  s.sentence = "May the force be with you.";
  auto check = permutation_check(s, *table, 4);
  ASSERT_TRUE(check.ok()) << check.error();
  ASSERT_EQ(check->tokens.size(), 7u);
  ASSERT_EQ(check->shuffled_outputs.rows(), 7);
  EXPECT_LT(check->max_abs_diff_none, 1e-5 * check->scale);  // equivariant: a pure reshuffle
  EXPECT_GT(check->max_abs_diff_rope, 1e-2 * check->scale);  // RoPE sees the new order
  // Row by row, the shuffled sentence's output k is the original output of token order[k].
  for (std::size_t k = 0; k < check->order.size(); ++k)
    EXPECT_TRUE(check->shuffled_outputs.row(static_cast<Eigen::Index>(k))
                    .isApprox(check->outputs.row(check->order[k]), 1e-4f));
}

// One word repeated: every value vector is the same, so every output is, with RoPE or a causal
// mask alike, and the reason given is that, not a missing position.
TEST(DogCases, ARepeatedWordIsIdenticalWhateverThePositionsAndSaysWhy) {
  auto table = load_text_embeddings(std::string(POSLAB_ASSETS) + "/glove-wink-100d-10k.txt");
  ASSERT_TRUE(table.ok());
  CpuBackend cpu;
  ModelSettings s;
  s.sentence = "dog dog dog";
  for (EncodingKind e : {EncodingKind::None, EncodingKind::Rope})
    for (bool causal : {false, true}) {
      s.encoding = e;
      s.causal = causal;
      auto r = run_pipeline(s, *table, cpu, false);
      ASSERT_TRUE(r.ok()) << r.error();
      const auto c = compare_outputs(r->attention.output, 0, 2);
      EXPECT_TRUE(c.identical()) << static_cast<int>(e) << causal;
      EXPECT_NE(explain_outputs(c, r->tokens, e, causal).find("every token is the same word"), std::string::npos);
    }
  // Added positions make the values differ.
  s.encoding = EncodingKind::Sinusoidal;
  s.causal = false;
  auto r = run_pipeline(s, *table, cpu, false);
  ASSERT_TRUE(r.ok()) << r.error();
  const auto c = compare_outputs(r->attention.output, 0, 2);
  EXPECT_FALSE(c.identical());
  EXPECT_EQ(explain_outputs(c, r->tokens, s.encoding, false), "different: positions make the two occurrences distinguishable");
  // Two different words around the repeat: without positions and mask the classic reason.
  s.sentence = "The dog chased another dog";
  s.encoding = EncodingKind::None;
  r = run_pipeline(s, *table, cpu, false);
  ASSERT_TRUE(r.ok()) << r.error();
  const auto d = compare_outputs(r->attention.output, 1, 4);
  EXPECT_NE(explain_outputs(d, r->tokens, s.encoding, false).find("without positions and without a causal mask"),
            std::string::npos);
}

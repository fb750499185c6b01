// Attention by distance: the mean weight per key − query offset, and the weight on the first token.
#include <gtest/gtest.h>

#include <sstream>

#include "core/attention/distance.hpp"

using namespace poslab;

namespace {

AttentionProblem problem(int T, bool causal, int padded = 0) {
  AttentionProblem p;
  p.Xq = Matrix::Zero(T, 4);
  p.Xkv = p.Xq;
  p.causal = causal;
  p.key_valid.assign(static_cast<std::size_t>(T), 1);
  for (int t = T - padded; t < T; ++t) p.key_valid[static_cast<std::size_t>(t)] = 0;
  return p;
}

// Causal uniform attention: row i spreads 1/(i + 1) over keys 0 … i.
Matrix causal_uniform(int T) {
  Matrix A = Matrix::Zero(T, T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j) A(i, j) = 1.0f / static_cast<float>(i + 1);
  return A;
}

}  // namespace

TEST(Distance, CausalUniformAttentionByHand) {
  const int T = 4;
  const DistanceProfile d = attention_by_distance({causal_uniform(T)}, problem(T, true));
  // Offsets −3 … 0 only: the future is masked.
  ASSERT_EQ(d.offsets, (std::vector<int>{-3, -2, -1, 0}));
  EXPECT_EQ(d.cells, (std::vector<int>{1, 2, 3, 4}));
  // Offset −k averages rows i = k … 3, each 1/(i + 1).
  EXPECT_NEAR(d.mean_weight[0][0], 1.0 / 4, 1e-7);                              // −3: row 3
  EXPECT_NEAR(d.mean_weight[0][1], (1.0 / 3 + 1.0 / 4) / 2, 1e-7);              // −2: rows 2, 3
  EXPECT_NEAR(d.mean_weight[0][2], (1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3, 1e-7);    // −1
  EXPECT_NEAR(d.mean_weight[0][3], (1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 4, 1e-7);  // 0: the diagonal
  // The sink: every row's weight on key 0, the harmonic number H_4 over 4.
  EXPECT_NEAR(d.sink[0], (1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 4, 1e-7);
  EXPECT_EQ(d.sink_queries, 4);
  EXPECT_EQ(d.index_of(-2), 1);
  EXPECT_EQ(d.index_of(1), -1);
}

TEST(Distance, PaddedKeysAreLeftOutAndHeadsKeptApart) {
  const int T = 3;
  // Two heads, no causal mask, key 2 padded (weight 0 in every row).
  Matrix a(T, T), b(T, T);
  a << 0.5f, 0.5f, 0, 0.25f, 0.75f, 0, 1.0f, 0.0f, 0;
  b << 0.1f, 0.9f, 0, 0.6f, 0.4f, 0, 0.3f, 0.7f, 0;
  const DistanceProfile d = attention_by_distance({a, b}, problem(T, false, 1));
  // Keys 0 and 1 only: offsets j − i from −2 to 1.
  ASSERT_EQ(d.offsets, (std::vector<int>{-2, -1, 0, 1}));
  EXPECT_EQ(d.cells, (std::vector<int>{1, 2, 2, 1}));
  EXPECT_NEAR(d.mean_weight[0][d.index_of(-1)], (0.25 + 0.0) / 2, 1e-7);  // (1,0) and (2,1)
  EXPECT_NEAR(d.mean_weight[0][d.index_of(0)], (0.5 + 0.75) / 2, 1e-7);
  EXPECT_NEAR(d.mean_weight[1][d.index_of(1)], 0.9, 1e-7);
  EXPECT_NEAR(d.mean_weight[1][d.index_of(-2)], 0.3, 1e-7);
  EXPECT_NEAR(d.sink[0], (0.5 + 0.25 + 1.0) / 3, 1e-7);
  EXPECT_NEAR(d.sink[1], (0.1 + 0.6 + 0.3) / 3, 1e-7);
}

TEST(Distance, CsvHasARowPerHeadAndOffsetAndTheSink) {
  const DistanceProfile d = attention_by_distance({causal_uniform(3), causal_uniform(3)}, problem(3, true));
  std::ostringstream out;
  write_distance_csv(out, d);
  EXPECT_EQ(out.str(),
            "kind,head,offset,mean_weight,cells\n"
            "offset,0,-2,0.33333334,1\n"
            "offset,0,-1,0.4166667,2\n"
            "offset,0,0,0.6111111,3\n"
            "sink,0,0,0.6111111,3\n"
            "offset,1,-2,0.33333334,1\n"
            "offset,1,-1,0.4166667,2\n"
            "offset,1,0,0.6111111,3\n"
            "sink,1,0,0.6111111,3\n");
}

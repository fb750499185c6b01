// The training engine: every parameter's gradient against central finite differences in double
// precision, for each positional encoding; the tasks; determinism over the cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <omp.h>

#include <cmath>
#include <string>

#include "base/random.hpp"
#include "core/train/model.hpp"
#include "core/train/trainer.hpp"

namespace poslab {
namespace {

struct Variant {
  std::string name;
  PositionKind positions;
  double partial_rotary = 1.0, rope_fraction = 1.0;
  TaskKind task = TaskKind::Copy;
};

std::string variant_name(const ::testing::TestParamInfo<Variant>& info) { return info.param.name; }
void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

// Small enough for a finite difference per parameter, large enough that every path is exercised:
// two layers, two heads of 8 (so that partial rotary and p-RoPE leave pairs out), T5 buckets
// past max_exact, three sequences over two shards.
TrainModelConfig tiny_config(const Variant& v) {
  TrainModelConfig c;
  c.vocab = 7;
  c.width = 16;
  c.heads = 2;
  c.layers = 2;
  c.mlp_width = 12;
  c.max_positions = 10;
  c.positions = v.positions;
  c.partial_rotary = v.partial_rotary;
  c.rope_fraction = v.rope_fraction;
  c.t5_buckets = 6;
  c.t5_max_distance = 7;
  return c;
}

// Seeded weights with norms and T5's table away from their initial 1 and 0, so that their
// gradients are tested at a general point.
Params<double> random_params(const TrainModelConfig& c, std::uint64_t seed) {
  Params<double> p(c);
  initialize(p, seed, 0.3);  // large enough that attention is far from uniform
  Rng rng(mix_seed(seed, 99));
  const auto jitter = [&rng](Tensor<double>& t, double base, double sigma) {
    for (Eigen::Index i = 0; i < t.size(); ++i) t.data[i] = base + sigma * rng.normal();
  };
  for (LayerParams<double>& w : p.layers) {
    jitter(w.attn_norm, 1.0, 0.3);
    jitter(w.mlp_norm, 1.0, 0.3);
  }
  jitter(p.final_norm, 1.0, 0.3);
  if (p.relative_bias.data) jitter(p.relative_bias, 0.0, 0.5);
  return p;
}

Batch tiny_batch(const Variant& v) {
  const Task task{v.task, 6};
  return make_batch(task, v.task == TaskKind::Copy ? 4 : 3, 3, 1234);  // T = 8
}

class TrainGradient : public ::testing::TestWithParam<Variant> {};

TEST_P(TrainGradient, EveryTensorMatchesCentralDifferences) {
  const TrainModelConfig c = tiny_config(GetParam());
  ASSERT_TRUE(validate(c));
  Params<double> p = random_params(c, 7);
  const Batch batch = tiny_batch(GetParam());
  GradientEngine<double> engine(c, 2);
  Params<double> grad(c);
  const double loss = engine.loss_and_gradient(p, batch, grad);
  ASSERT_TRUE(std::isfinite(loss));
  EXPECT_NEAR(engine.loss(p, batch), loss, 1e-14);

  const double h = 1e-5;
  for (const TensorSpec& spec : p.specs()) {
    Tensor<double>& t = *p.find(spec.name);
    const Tensor<double>& g = *grad.find(spec.name);
    double diff2 = 0.0, ref2 = 0.0;
    for (Eigen::Index i = 0; i < t.size(); ++i) {
      const double saved = t.data[i];
      t.data[i] = saved + h;
      const double up = engine.loss(p, batch);
      t.data[i] = saved - h;
      const double down = engine.loss(p, batch);
      t.data[i] = saved;
      const double fd = (up - down) / (2 * h);
      diff2 += (g.data[i] - fd) * (g.data[i] - fd);
      ref2 += fd * fd;
    }
    ASSERT_GT(ref2, 0.0) << spec.name << " gets no gradient at all";
    EXPECT_LE(std::sqrt(diff2 / ref2), 1e-4) << spec.name << ": ‖analytic − numeric‖ / ‖numeric‖";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Encodings, TrainGradient,
    ::testing::Values(Variant{"none", PositionKind::None}, Variant{"sinusoidal", PositionKind::Sinusoidal},
                      Variant{"learned", PositionKind::Learned}, Variant{"rope", PositionKind::Rope},
                      Variant{"rope_partial_p", PositionKind::Rope, 0.5, 0.5}, Variant{"alibi", PositionKind::Alibi},
                      Variant{"t5", PositionKind::T5}, Variant{"t5_recall", PositionKind::T5, 1.0, 1.0, TaskKind::Recall},
                      Variant{"rope_recall", PositionKind::Rope, 1.0, 1.0, TaskKind::Recall}),
    variant_name);

TEST(TrainGradient, TheSameBitsOnOneCoreOrTwo) {
  TrainModelConfig c = tiny_config({"rope", PositionKind::Rope});
  Params<float> p(c);
  initialize(p, 3, 0.02);
  const Batch batch = make_batch(Task{TaskKind::Copy, 6}, 5, 8, 77);
  const auto run = [&](int threads) {
    omp_set_num_threads(threads);
    GradientEngine<float> engine(c, 2);
    Params<float> grad(c);
    const double loss = engine.loss_and_gradient(p, batch, grad);
    return std::pair{loss, std::vector<float>(grad.values().begin(), grad.values().end())};
  };
  const int before = omp_get_max_threads();
  const auto one = run(1), two = run(2);
  omp_set_num_threads(before);
  EXPECT_EQ(one.first, two.first);
  EXPECT_TRUE(one.second == two.second);
}

// Copy repeats the symbols after the separator; reverse repeats them backwards.
TEST(TrainTasks, CopyAndReverseRepeatTheSymbolsAfterTheSeparator) {
  for (TaskKind kind : {TaskKind::Copy, TaskKind::Reverse}) {
    const Task task{kind, 10};
    const Batch b = make_batch(task, 5, 3, 42);
    ASSERT_EQ(b.tokens, 10);
    EXPECT_EQ(b.counted(), 15);
    for (int s = 0; s < 3; ++s) {
      const int* ids = &b.ids[static_cast<std::size_t>(s * 10)];
      const int* targets = &b.targets[static_cast<std::size_t>(s * 10)];
      EXPECT_EQ(ids[5], separator_id(task));
      for (int t = 0; t < 5; ++t) {
        EXPECT_LT(ids[t], 10);
        // Position L + t predicts x_t (copy) or x_{L−1−t} (reverse).
        EXPECT_EQ(targets[5 + t], ids[kind == TaskKind::Copy ? t : 4 - t]) << to_string(kind);
        EXPECT_EQ(b.mask[static_cast<std::size_t>(s * 10 + t)], 0);
        EXPECT_EQ(b.mask[static_cast<std::size_t>(s * 10 + 5 + t)], 1);
      }
      for (int t = 0; t + 1 < 10; ++t) EXPECT_EQ(targets[t], ids[t + 1]);
    }
    // A sequence depends on the seed and its index only.
    const Batch more = make_batch(task, 5, 5, 42);
    EXPECT_TRUE(std::equal(b.ids.begin(), b.ids.end(), more.ids.begin()));
  }
  EXPECT_EQ(*parse_task_kind("reverse"), TaskKind::Reverse);
  EXPECT_EQ(to_string(TaskKind::Reverse), "reverse");
  EXPECT_EQ(scored_description(Task{TaskKind::Reverse, 10}), "the reversed copy after |, as the task scores it");
}

// Mixed lengths (Kazemnejad et al.'s training): each sequence a length of its own, written from
// position 0, the rest separators that count for nothing; the same batch from the same seed.
TEST(TrainTasks, MixedBatchesHoldEveryLengthFromTheShortestUpAndCountOnlyTheirTargets) {
  const Task task{TaskKind::Copy, 10};
  const Batch b = make_mixed_batch(task, 2, 6, 64, 9);
  ASSERT_EQ(b.tokens, 12);
  std::set<int> lengths;
  for (int s = 0; s < 64; ++s) {
    const std::size_t at = static_cast<std::size_t>(s * 12);
    const auto sep = std::find(b.ids.begin() + static_cast<std::ptrdiff_t>(at), b.ids.begin() + static_cast<std::ptrdiff_t>(at + 12), separator_id(task));
    const int L = static_cast<int>(sep - (b.ids.begin() + static_cast<std::ptrdiff_t>(at)));
    lengths.insert(L);
    int counted = 0;
    for (int t = 0; t < 12; ++t) counted += b.mask[at + static_cast<std::size_t>(t)];
    EXPECT_EQ(counted, L) << "sequence " << s;
    for (int t = 0; t < L; ++t) EXPECT_EQ(b.targets[at + static_cast<std::size_t>(L + t)], b.ids[at + static_cast<std::size_t>(t)]);
    for (int t = 2 * L; t < 12; ++t) EXPECT_EQ(b.ids[at + static_cast<std::size_t>(t)], separator_id(task));
  }
  EXPECT_EQ(lengths, (std::set<int>{2, 3, 4, 5, 6}));
  const Batch again = make_mixed_batch(task, 2, 6, 64, 9);
  EXPECT_EQ(again.ids, b.ids);
  EXPECT_EQ(again.mask, b.mask);
  TrainSettings s = default_train_settings();
  s.min_length = s.train_length + 1;
  EXPECT_FALSE(validate(s));
  s.min_length = 1;
  EXPECT_TRUE(validate(s));
  EXPECT_NE(training_batch(s, 0).ids, make_batch(s.task, s.train_length, s.batch, 0).ids);
}

TEST(TrainTasks, RecallAsksForTheValueLastBoundToAKey) {
  const Task task{TaskKind::Recall, 8};  // keys a–d, values e–h
  const Batch b = make_batch(task, 6, 20, 5);
  ASSERT_EQ(recall_queries(6), 2);
  ASSERT_EQ(b.tokens, 16);  // 6 pairs, "|", a query, its answer, a query (its answer is a target)
  EXPECT_EQ(b.counted(), 40);
  for (int s = 0; s < 20; ++s) {
    const int* ids = &b.ids[static_cast<std::size_t>(s * 16)];
    const int* targets = &b.targets[static_cast<std::size_t>(s * 16)];
    const std::uint8_t* mask = &b.mask[static_cast<std::size_t>(s * 16)];
    EXPECT_EQ(ids[12], separator_id(task));
    for (int p = 0; p < 6; ++p) {
      EXPECT_LT(ids[2 * p], 4);
      EXPECT_GE(ids[2 * p + 1], 4);
    }
    for (int t : {13, 15}) {  // the queries
      EXPECT_EQ(mask[t], 1);
      const int key = ids[t];
      EXPECT_LT(key, 4);
      int last = -1;
      for (int p = 0; p < 6; ++p)
        if (ids[2 * p] == key) last = ids[2 * p + 1];
      EXPECT_EQ(targets[t], last);
    }
    EXPECT_EQ(ids[14], targets[13]);  // the first answer is read before the second query
    for (int t = 0; t < 16; ++t) {
      if (t != 13 && t != 15) {
        EXPECT_EQ(mask[t], 0);
      }
    }
  }
  auto ids = task_ids(task, "ae|a");
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, (std::vector<int>{0, 4, 8, 0}));
}

}  // namespace
}  // namespace poslab

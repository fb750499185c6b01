// The memory budget: sizes parse as people write them, and every run that would take more than
// the budget is refused before it allocates, with what it needs and the option that lowers it.
#include <gtest/gtest.h>

#include "core/attention/pipeline.hpp"
#include "base/memory.hpp"
#include "core/train/evaluate.hpp"
#include "core/train/trainer.hpp"

namespace poslab {
namespace {

// Sets a limit for one test and puts the default back after it.
class Limit {
 public:
  explicit Limit(const std::string& text) {
    auto bytes = parse_memory_size(text);
    EXPECT_TRUE(bytes) << bytes.error();
    set_memory_limit(bytes ? *bytes : 0, "--memory-limit " + text);
  }
  ~Limit() { set_memory_limit(0, ""); }
};

TEST(MemoryBudget, SizesParseAsWrittenAndNonsenseIsRefused) {
  EXPECT_EQ(*parse_memory_size("8G"), 8ull << 30);
  EXPECT_EQ(*parse_memory_size("512M"), 512ull << 20);
  EXPECT_EQ(*parse_memory_size("1.5GB"), 3ull << 29);
  EXPECT_EQ(*parse_memory_size("2GiB"), 2ull << 30);
  EXPECT_EQ(*parse_memory_size("1t"), 1ull << 40);
  for (const char* bad : {"", "G", "8X", "-1G", "0", "100K", "nan", "1e30"}) EXPECT_FALSE(parse_memory_size(bad)) << bad;
  EXPECT_EQ(format_bytes(12.6e9), "12.6 GB");
  EXPECT_EQ(format_bytes(512e6), "512 MB");
}

TEST(MemoryBudget, TheDefaultIsAShareOfTheMachine) {
  const MemoryBudget b = memory_budget();
  EXPECT_GT(b.bytes, 100ull << 20);
  EXPECT_NE(b.source.find("half of this machine"), std::string::npos) << b.source;
}

// poslab train --batch 4096 --train-length 1024 --width 256 --layers 4: every value inside the
// documented limits, and an abort before; now a message with what it needs.
TEST(MemoryBudget, TrainingOverTheBudgetIsRefusedBeforeItAllocates) {
  TrainSettings s;
  s.batch = 4096;
  s.train_length = 1024;
  s.model.width = 256;
  s.model.layers = 4;
  const double need = training_bytes(s);
  EXPECT_GT(need, 1e12);  // the attention weights alone: 4096 × 4 heads × 2048² floats per layer
  {
    Limit limit("8G");
    auto run = train(s);
    ASSERT_FALSE(run);
    EXPECT_NE(run.error().find("would need"), std::string::npos) << run.error();
    EXPECT_NE(run.error().find("--batch"), std::string::npos) << run.error();
    EXPECT_NE(run.error().find("--memory-limit 8G"), std::string::npos) << run.error();
  }
  s.batch = 4;
  s.train_length = 8;
  s.model.width = 32;
  Limit limit("1G");
  EXPECT_TRUE(check_training_memory(s));
}

TEST(MemoryBudget, EvaluationOverTheBudgetIsARefusedRowNotAnAbort) {
  Limit limit("64M");
  const Params<float> p(TrainModelConfig{});
  const auto rows = evaluate_lengths(p, Task{}, 8, {8, 4096}, EvalSettings{4, 1, RopeScalingType::None});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].supported) << rows[0].refused;
  EXPECT_FALSE(rows[1].supported);
  EXPECT_NE(rows[1].refused.find("give shorter --lengths"), std::string::npos) << rows[1].refused;
}

// 20 000-dimensional embeddings: eight d × d projections are 12.8 GB for a five-word sentence.
TEST(MemoryBudget, WideEmbeddingsAreRefusedBeforeTheirProjectionsAreMade) {
  Limit limit("4G");
  ModelSettings s;
  EXPECT_TRUE(check_pipeline_memory(s, 512, 5, 5));
  auto wide = check_pipeline_memory(s, 20000, 5, 5);
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.error().find("20000-dimensional"), std::string::npos) << wide.error();
  EXPECT_NE(wide.error().find("12.8 GB"), std::string::npos) << wide.error();
  EXPECT_FALSE(check_pipeline_memory(s, 1000000, 2, 2));
}

}  // namespace
}  // namespace poslab

// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// A Hugging Face model folder made here: BF16 embeddings in model.safetensors (or a shard named
// by the index), tokenizer.json and config.json. Sentences are split by the model's tokenizer and
// only the rows they need are read from the mapped file.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "tokenizer/tokenizer.hpp"
#include "core/formats/embeddings.hpp"
#include "core/formats/formats.hpp"
#include "core/options.hpp"
#include "core/attention/pipeline.hpp"
#include "core/formats/tokenizer.hpp"
#include "tiny_tokenizer.hpp"
#include "temp_folder.hpp"

using namespace poslab;
namespace fs = std::filesystem;

namespace {

constexpr int kRows = 102, kDim = 8;  // ids up to <x> = 101

// Row i, component j = i + j/8: exact in BF16 for these sizes.
float value(int i, int j) { return static_cast<float>(i) + static_cast<float>(j) / 8.0f; }

void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

std::string safetensors_bf16(const std::string& tensor) {
  std::string data;
  for (int i = 0; i < kRows; ++i)
    for (int j = 0; j < kDim; ++j) {
      const float f = value(i, j);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &f, 4);
      const auto half = static_cast<std::uint16_t>(bits >> 16);  // exact: the low half is zero here
      data += static_cast<char>(half & 0xFF);
      data += static_cast<char>(half >> 8);
    }
  std::string header = R"({")" + tensor + R"(": {"dtype": "BF16", "shape": [)" + std::to_string(kRows) + ", " +
                       std::to_string(kDim) + R"(], "data_offsets": [0, )" + std::to_string(data.size()) + "]}}";
  while (header.size() % 8) header += ' ';
  std::string out(8, '\0');
  const std::uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  return out + header + data;
}

// A tiny model folder's files written into `dir`.
void make_model(const fs::path& dir, bool sharded) {
  write(dir / "tokenizer.json", tokenizer_json(false, true));
  write(dir / "config.json", R"({"hidden_size": 8, "num_attention_heads": 2, "head_dim": 4, "rope_theta": 500000.0,
                                 "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                 "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}})");
  if (sharded) {
    write(dir / "model-00001-of-00001.safetensors", safetensors_bf16("model.embed_tokens.weight"));
    write(dir / "model.safetensors.index.json",
          R"({"weight_map": {"model.embed_tokens.weight": "model-00001-of-00001.safetensors"}})");
  } else {
    write(dir / "model.safetensors", safetensors_bf16("model.embed_tokens.weight"));
  }
}

}  // namespace

TEST(ModelFolder, TokensComeFromTheModelsTokenizerAndRowsFromTheFile) {
  for (bool sharded : {false, true}) {
    const poslab::test_support::TempFolder dir("model-t");
    make_model(dir, sharded);
    auto table = load_embeddings_file(dir, {});
    ASSERT_TRUE(table.ok()) << table.error();
    EXPECT_EQ(table->size(), kRows);
    EXPECT_EQ(table->dim(), kDim);
    EXPECT_EQ(table->dtype(), "BF16");
    ASSERT_NE(table->tokenizer(), nullptr);
    const auto tokens = tokenize("dog dog", *table);
    ASSERT_EQ(tokens.size(), 3u);  // <s>, "dog", " dog"
    EXPECT_EQ(tokens[0].row, 100);
    EXPECT_EQ(tokens[1].row, 8);
    EXPECT_EQ(tokens[2].text, " dog");
    auto row = table->row(9);
    ASSERT_TRUE(row.ok());
    for (int j = 0; j < kDim; ++j) EXPECT_EQ((*row)(j), value(9, j));
    // The whole pipeline runs on it: row 1 of the input is the file's row 8 ("dog").
    ModelSettings s;
    s.sentence = "dog dog";
    s.heads = 2;
    CpuBackend cpu;
    auto r = run_pipeline(s, *table, cpu, false);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->problem.Xq.row(1), RowVector(table->row(8).value()));
  }
}

TEST(ModelFolder, ModelOptionReadsTheConfig) {
  const poslab::test_support::TempFolder dir("model-c");
  make_model(dir, false);
  State s;
  ASSERT_TRUE(find_state_option("--model")->apply(s, dir.string()).ok());
  EXPECT_EQ(s.embeddings_path, dir.string());
  EXPECT_EQ(s.model.heads, 2);
  EXPECT_EQ(s.model.base, 500000.0);
  EXPECT_EQ(s.model.scaling.type, RopeScalingType::Llama3);
  EXPECT_FALSE(find_state_option("--model")->apply(s, (dir / "nope").string()).ok());
}

TEST(ModelFolder, ClearErrors) {
  const poslab::test_support::TempFolder dir("model-e");
  make_model(dir, false);
  fs::remove(dir / "model.safetensors");
  auto missing = load_embeddings_file(dir, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("model.safetensors"), std::string::npos) << missing.error();
  write(dir / "model.safetensors", safetensors_bf16("other.weight"));
  auto wrong = load_embeddings_file(dir, {}, "lm_head.weight");
  EXPECT_FALSE(wrong.ok());
  // A safetensors file alone, without tokenizer: rows by token id.
  fs::remove(dir / "tokenizer.json");
  auto ids = load_embeddings_file(dir / "model.safetensors", {});
  ASSERT_TRUE(ids.ok()) << ids.error();
  EXPECT_EQ(ids->find("9"), 9);
  EXPECT_EQ(ids->tokenizer(), nullptr);
}

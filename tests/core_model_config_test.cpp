// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// A Hugging Face config.json read into the settings as it is.
#include <gtest/gtest.h>

#include "core/model/model_config.hpp"

using namespace poslab;

TEST(ModelConfig, ReadsLlama32) {
  // The positional part of meta-llama/Llama-3.2-1B's config.json.
  const char* json = R"({"hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 8,
    "max_position_embeddings": 131072, "rope_theta": 500000.0,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "tie_word_embeddings": true})";
  ModelSettings s;
  ASSERT_TRUE(apply_model_config(s, json, "config.json").ok());
  EXPECT_EQ(s.base, 500000.0);
  EXPECT_EQ(s.scaling.type, RopeScalingType::Llama3);
  EXPECT_EQ(s.scaling.factor, 32.0);
  EXPECT_EQ(s.scaling.low_freq_factor, 1.0);
  EXPECT_EQ(s.scaling.high_freq_factor, 4.0);
  EXPECT_EQ(s.scaling.original_max_position, 8192);
  EXPECT_EQ(s.heads, 32);
  EXPECT_EQ(s.kv_heads, 8);  // grouped-query attention: groups of 4 query heads share keys
  EXPECT_EQ(key_value_heads(s), 8);
}

TEST(ModelConfig, KeyValueHeadsEqualToTheHeadsAreMultiHeadAttention) {
  ModelSettings s;
  s.kv_heads = 2;  // from an earlier model: a new config without GQA clears it
  ASSERT_TRUE(apply_model_config(s, R"({"num_attention_heads": 12, "num_key_value_heads": 12})", "c").ok());
  EXPECT_EQ(s.heads, 12);
  EXPECT_EQ(s.kv_heads, 0);
  EXPECT_EQ(key_value_heads(s), 12);
  s.kv_heads = 3;
  ASSERT_TRUE(apply_model_config(s, R"({"num_attention_heads": 12})", "c").ok());
  EXPECT_EQ(s.kv_heads, 0);
}

TEST(ModelConfig, ReadsOlderTypeKeyAndNull) {
  ModelSettings s;
  ASSERT_TRUE(apply_model_config(s, R"({"rope_scaling": {"type": "yarn", "factor": 4.0,
      "original_max_position_embeddings": 32768}, "rope_theta": 1000000})", "c").ok());
  EXPECT_EQ(s.scaling.type, RopeScalingType::Yarn);
  EXPECT_EQ(s.scaling.original_max_position, 32768);
  EXPECT_EQ(s.base, 1000000.0);
  ASSERT_TRUE(apply_model_config(s, R"({"rope_scaling": {"type": "linear", "factor": 2.0},
      "max_position_embeddings": 4096})", "c").ok());
  EXPECT_EQ(s.scaling.type, RopeScalingType::Linear);
  EXPECT_EQ(s.scaling.original_max_position, 4096);
  ASSERT_TRUE(apply_model_config(s, R"({"rope_scaling": null})", "c").ok());
  EXPECT_EQ(s.scaling.type, RopeScalingType::Linear);  // null says nothing new
}

TEST(ModelConfig, BadConfigsChangeNothing) {
  ModelSettings s;
  const ModelSettings before = s;
  struct Case { const char* json; const char* message; };
  for (const Case& c : {Case{"{not json", "not valid JSON"}, Case{"[1, 2]", "holds an object"},
                        Case{R"({"rope_theta": "big"})", "\"rope_theta\" must be a number"},
                        Case{R"({"rope_theta": 5e5, "rope_scaling": {"rope_type": "mrope", "mrope_section": [2]}})", "mrope"},
                        Case{R"({"rope_theta": 5e5, "rope_scaling": {"rope_type": "longrope", "factor": 2}})", "short_factor"},
                        Case{R"({"rope_scaling": {"type": "longrope", "short_factor": [1, 2], "long_factor": [1]}})", "same length"},
                        Case{R"({"rope_scaling": {"type": "su", "short_factor": [1, -2], "long_factor": [1, 1]}})", "> 0"},
                        Case{R"({"rope_scaling": {"rope_type": "linear", "factor": 0.5}})", "factor"},
                        Case{R"({"num_attention_heads": 32, "num_key_value_heads": 5})", "num_key_value_heads"},
                        Case{R"({"num_attention_heads": 32, "num_key_value_heads": 64})", "num_key_value_heads"},
                        Case{R"({"num_attention_heads": 1e30})", "num_attention_heads"}}) {
    auto r = apply_model_config(s, c.json, "cfg.json");
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_NE(r.error().find(c.message), std::string::npos) << r.error();
    EXPECT_NE(r.error().find("cfg.json"), std::string::npos) << r.error();
    EXPECT_TRUE(s == before);
  }
  EXPECT_NE(load_model_config(s, "/no/such/config.json").error().find("no such file"), std::string::npos);
}

namespace poslab {
namespace {

TEST(ModelConfig, APosLabTrainedModelShowsItsOwnPositions) {
  struct Case {
    const char* kind;
    EncodingKind encoding;
    BiasKind bias;
  };
  for (const Case& c : {Case{"none", EncodingKind::None, BiasKind::None}, Case{"sinusoidal", EncodingKind::Sinusoidal, BiasKind::None},
                        Case{"learned", EncodingKind::Learned, BiasKind::None}, Case{"rope", EncodingKind::Rope, BiasKind::None},
                        Case{"alibi", EncodingKind::None, BiasKind::Alibi}, Case{"t5", EncodingKind::None, BiasKind::T5}}) {
    ModelSettings s;
    s.bias = BiasKind::Shaw;  // whatever was set before is replaced
    const std::string config = std::string(R"({"num_attention_heads": 4, "poslab_positions": ")") + c.kind +
                               R"(", "poslab_rope_fraction": 0.5})";
    ASSERT_TRUE(apply_model_config(s, config, "config.json")) << c.kind;
    EXPECT_EQ(s.encoding, c.encoding) << c.kind;
    EXPECT_EQ(s.bias, c.bias) << c.kind;
    EXPECT_EQ(s.rope_fraction, std::string(c.kind) == "rope" ? 0.5 : 1.0) << c.kind;
  }
  ModelSettings s;
  const ModelSettings before = s;
  const auto bad = apply_model_config(s, R"({"poslab_positions": "fourier"})", "config.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("fourier"), std::string::npos);
  EXPECT_EQ(s.encoding, before.encoding);  // the previous state is kept
}

}  // namespace
}  // namespace poslab

// RoPE's settings in both forms Hugging Face writes (transformers 4's rope_theta/rope_scaling,
// transformers 5's rope_parameters), and the rule that every key that changes positions is read or
// refused by name. Expected values are the configs' own numbers and transformers' documented
// rules (modeling_rope_utils: standardize_rope_params, the per-type required keys, YaRN's mscale).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "core/model/model_config.hpp"
#include "core/formats/rope_parameters.hpp"
#include "core/model/positional_keys.hpp"
#include "core/model/position_design.hpp"
#include "core/model/checkpoint.hpp"
#include "core/model/transformer_config.hpp"
#include "temp_folder.hpp"

namespace poslab {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

Result<RopeParameters> read(const std::string& text, const RopeKeyNames& keys = {}) {
  return read_rope_parameters(Json::parse(text), keys, "config.json");
}

// The issue's case: a Llama config as transformers 5 writes it, base 100, no top-level rope_theta.
TEST(RopeParameters, TheFlatV5FormGivesTheBaseAndWhereItCameFrom) {
  auto r = read(R"({"rope_parameters": {"rope_theta": 100.0, "rope_type": "default"}, "max_position_embeddings": 2048})");
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->v5);
  ASSERT_TRUE(r->global.theta);
  EXPECT_EQ(*r->global.theta.value, 100.0);
  EXPECT_EQ(r->global.theta.from, "rope_parameters.rope_theta");
  EXPECT_FALSE(r->global.scaling);
  // The explorer's --model-config reads the same base.
  ModelSettings s;
  ASSERT_TRUE(apply_model_config(s, R"({"rope_parameters": {"rope_theta": 100.0, "rope_type": "default"}})", "c").ok());
  EXPECT_EQ(s.base, 100.0);
}

TEST(RopeParameters, AV5ScalingIsTheSameAsTheLegacyOne) {
  const char* v4 = R"({"rope_theta": 500000.0, "max_position_embeddings": 131072,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"}})";
  const char* v5 = R"({"max_position_embeddings": 131072,
    "rope_parameters": {"rope_theta": 500000.0, "factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                        "original_max_position_embeddings": 8192, "rope_type": "llama3"}})";
  auto a = read(v4), b = read(v5);
  ASSERT_TRUE(a) << a.error();
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(*a->global.theta.value, *b->global.theta.value);
  ASSERT_TRUE(a->global.scaling && b->global.scaling);
  EXPECT_TRUE(*a->global.scaling.value == *b->global.scaling.value);
  EXPECT_EQ(b->global.scaling.value->original_max_position, 8192);
  EXPECT_EQ(a->global.scaling.from, "rope_scaling");
  EXPECT_EQ(b->global.scaling.from, "rope_parameters");
}

TEST(RopeParameters, OneEntryPerLayerTypeGivesTheGlobalAndTheLocalRope) {
  auto r = read(R"({"layer_types": ["sliding_attention", "full_attention"],
    "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})",
                RopeKeyNames{{"rope_theta"}, {"partial_rotary_factor"}, {"rope_local_base_freq"}});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r->global.theta.value, 1e6);
  EXPECT_EQ(r->global.theta.from, "rope_parameters.full_attention.rope_theta");
  EXPECT_EQ(r->global.scaling.value->type, RopeScalingType::Linear);
  EXPECT_EQ(r->global.scaling.value->factor, 8.0);
  ASSERT_TRUE(r->local && r->local->theta);
  EXPECT_EQ(*r->local->theta.value, 10000.0);
  EXPECT_EQ(r->local->theta.from, "rope_parameters.sliding_attention.rope_theta");
}

TEST(RopeParameters, TheOldKeysFillWhatRopeParametersLeavesOut) {
  // transformers' standardize_rope_params: a top-level rope_theta is the default of the dict's.
  auto r = read(R"({"rope_theta": 5000.0, "rope_parameters": {"rope_type": "default"}})");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r->global.theta.value, 5000.0);
  EXPECT_EQ(r->global.theta.from, "rope_theta");
}

TEST(RopeParameters, BothFormsDisagreeingAreRefusedNamingBoth) {
  for (const char* text : {R"({"rope_theta": 10000.0, "rope_parameters": {"rope_type": "default", "rope_theta": 100.0}})",
                           R"({"partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.25}})"}) {
    auto r = read(text);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().find("rope_parameters."), std::string::npos) << r.error();
    EXPECT_NE(r.error().find("disagree"), std::string::npos) << r.error();
  }
  auto r = read(R"({"rope_scaling": {"rope_type": "linear", "factor": 2.0},
                    "rope_parameters": {"rope_type": "linear", "factor": 4.0}})");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("rope_scaling and rope_parameters disagree"), std::string::npos) << r.error();
}

TEST(RopeParameters, EveryKeyIsReadOrRefusedByName) {
  struct Case {
    const char* json;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"rope_parameters": {"rope_type": "dynamic_alpha", "rope_theta": 1e6}})", "rope_type \"dynamic_alpha\" is not supported"},
           Case{R"({"rope_parameters": {"rope_type": "default", "rope_theta": 1e6, "mrope_section": [16, 24]}})", "three section sizes"},
           Case{R"({"rope_parameters": {"rope_type": "default", "rope_theta": 1e6, "mrope_interleaved": true}})", "needs mrope_section"},
           Case{R"({"rope_parameters": {"rope_type": "default", "rope_theta": 1e6, "wobble": 2}})", "rope_parameters.wobble"},
           Case{R"({"rope_parameters": {"rope_type": "linear"}})", "needs \"factor\""},
           Case{R"({"rope_scaling": {"rope_type": "yarn", "original_max_position_embeddings": 4096}})", "needs \"factor\""},
           Case{R"({"rope_parameters": {"rope_type": "llama3", "factor": 8}})", "low_freq_factor"},
           Case{R"({"rope_parameters": {"rope_type": "linear", "factor": 2, "mscale": 1}})", "mscale belongs to rope_type yarn"},
           Case{R"({"rope_parameters": {"rope_type": "default", "attention_factor": 2}})", "attention_factor belongs"},
           Case{R"({"layer_types": ["full_attention", "chunked_attention"],
                    "rope_parameters": {"full_attention": {"rope_theta": 5e5}, "chunked_attention": {"rope_theta": 5e5}}})",
                "chunked_attention"},
           Case{R"({"layer_types": ["full_attention", "sliding_attention"], "rope_parameters": {"full_attention": {"rope_theta": 5e5}}})",
                "no entry for the layer type \"sliding_attention\""},
           Case{R"({"layer_types": ["full_attention", "sliding_attention"],
                    "rope_parameters": {"full_attention": {"rope_theta": 5e5},
                                        "sliding_attention": {"rope_type": "linear", "factor": 2, "rope_theta": 1e4}}})",
                "sliding layers"},
           Case{R"({"rope_parameters": {"rope_type": "default", "rope_theta": 0.5}})", "rope_parameters.rope_theta\" must be greater than 1"},
           Case{R"({"rope_parameters": [1, 2]})", "rope_parameters must be an object"},
       }) {
    auto r = read(c.json);
    ASSERT_FALSE(r) << c.json;
    EXPECT_NE(r.error().find(c.message), std::string::npos) << r.error();
    EXPECT_EQ(r.error().rfind("config.json", 0), 0u) << r.error();
  }
}

TEST(RopeParameters, YarnReadsItsAttentionFactorMscaleAndTruncate) {
  // An explicit attention factor replaces 0.1·ln s + 1.
  auto given = read(R"({"rope_parameters": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768,
                        "attention_factor": 1.5}})");
  ASSERT_TRUE(given) << given.error();
  EXPECT_EQ(rope_frequencies(64, 1e6, *given->global.scaling.value, 16).attention_scale, 1.5);
  // DeepSeek's mscale = mscale_all_dim: their ratio, 1 (not 0.1·ln 40 + 1).
  auto deepseek = read(R"({"rope_scaling": {"type": "yarn", "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                          "original_max_position_embeddings": 4096, "beta_fast": 32, "beta_slow": 1}})");
  ASSERT_TRUE(deepseek) << deepseek.error();
  EXPECT_DOUBLE_EQ(rope_frequencies(64, 1e4, *deepseek->global.scaling.value, 16).attention_scale, 1.0);
  // mscale 1, mscale_all_dim 0.5: (0.1·ln 40 + 1) / (0.05·ln 40 + 1).
  auto ratio = read(R"({"rope_scaling": {"type": "yarn", "factor": 40, "mscale": 1.0, "mscale_all_dim": 0.5}})");
  ASSERT_TRUE(ratio) << ratio.error();
  EXPECT_DOUBLE_EQ(rope_frequencies(64, 1e4, *ratio->global.scaling.value, 16).attention_scale,
                   (0.1 * std::log(40.0) + 1.0) / (0.05 * std::log(40.0) + 1.0));
  // truncate false (GPT-OSS): the ramp's ends are not rounded, so some pair's θ differs.
  auto rounded = read(R"({"rope_scaling": {"rope_type": "yarn", "factor": 32, "original_max_position_embeddings": 4096}})");
  auto exact = read(R"({"rope_scaling": {"rope_type": "yarn", "factor": 32, "original_max_position_embeddings": 4096, "truncate": false}})");
  ASSERT_TRUE(rounded && exact);
  EXPECT_FALSE(exact->global.scaling.value->yarn_truncate);
  const auto a = rope_frequencies(64, 150000.0, *rounded->global.scaling.value, 16).thetas;
  const auto b = rope_frequencies(64, 150000.0, *exact->global.scaling.value, 16).thetas;
  // Independent: HF's find_correction_dim for β_fast = 32 at d = 64, base 150000, L = 4096.
  const double low = 64.0 * std::log(4096.0 / (32.0 * 2.0 * M_PI)) / (2.0 * std::log(150000.0));
  const double high = 64.0 * std::log(4096.0 / (1.0 * 2.0 * M_PI)) / (2.0 * std::log(150000.0));
  const int i = static_cast<int>(std::ceil(low));  // a pair inside the ramp
  const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
  const double theta = std::pow(150000.0, -2.0 * i / 64.0);
  EXPECT_NEAR(b[static_cast<std::size_t>(i)], theta / 32.0 * ramp + theta * (1.0 - ramp), 1e-12 * theta);
  EXPECT_NE(a[static_cast<std::size_t>(i)], b[static_cast<std::size_t>(i)]);
}

TEST(RopeParameters, LongRopeTakesTheV5FactorFirst) {
  const std::string factors = R"("short_factor": [1, 1], "long_factor": [2, 2])";
  // transformers 4: s = max / original whenever both are at the top level.
  auto v4 = read(R"({"max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                     "rope_scaling": {"type": "longrope", )" + factors + "}}");
  ASSERT_TRUE(v4) << v4.error();
  EXPECT_EQ(v4->global.scaling.value->factor, 32.0);
  EXPECT_EQ(v4->global.scaling.value->original_max_position, 4096);
  // transformers 5: the dictionary's own factor and L.
  auto v5 = read(R"({"max_position_embeddings": 131072,
                     "rope_parameters": {"rope_type": "longrope", "factor": 8.0, "original_max_position_embeddings": 4096, )" +
                 factors + "}}");
  ASSERT_TRUE(v5) << v5.error();
  EXPECT_EQ(v5->global.scaling.value->factor, 8.0);
  EXPECT_DOUBLE_EQ(v5->global.scaling.value->attention_factor, std::sqrt(1.0 + std::log(8.0) / std::log(4096.0)));
  // Without a factor, s = max / L from the dictionary's L.
  auto implied = read(R"({"max_position_embeddings": 131072,
                          "rope_parameters": {"rope_type": "longrope", "original_max_position_embeddings": 4096, )" +
                      factors + "}}");
  ASSERT_TRUE(implied) << implied.error();
  EXPECT_EQ(implied->global.scaling.value->factor, 32.0);
}

// ---- The rule, enumerated over every family's test folder ------------------------------------

fs::path reference_dir() { return fs::path(POSLAB_MODEL_REFERENCE); }

Json folder_config(const std::string& folder) {
  std::ifstream in(reference_dir() / folder / "config.json");
  EXPECT_TRUE(in.good()) << folder << ": ctest runs ModelReference.* first";
  return Json::parse(in);
}

// What a config says about positions, to tell whether a key was read.
std::string positional_signature(const TransformerConfig& c) {
  std::ostringstream s;
  s << c.rope_theta << ' ' << to_string(c.scaling.type) << ' ' << c.scaling.factor << ' ' << c.scaling.original_max_position << ' '
    << c.partial_rotary << ' ' << c.rotary_dim << ' ' << c.rope_local_theta.value_or(0) << ' ' << c.sliding_window << ' '
    << static_cast<int>(c.positions) << ' ' << c.t5_buckets << ' ' << c.t5_max_distance << ' ' << c.max_positions << ' '
    << c.rope_fraction << ' ' << c.chunk_size << ' ' << c.qk_l2_norm << ' ' << c.temperature_tuning << ' ' << c.floor_scale << ' '
    << c.attn_scale << ' ' << static_cast<int>(c.rope_style) << ' ' << c.global_head_dim << ' ' << c.global_kv_heads << ' '
    << c.keys_as_values << ' ' << c.kv_shared_layers << ' ' << c.global_rotating_pairs << " w";
  for (auto w : c.windowed) s << int(w);
  s << " r";
  for (auto r : c.rope_layers) s << int(r);
  s << " c";
  for (auto k : c.chunked) s << int(k);
  return s.str();
}

// For each key, two versions of the same config (patches over the folder's) that differ in that key
// alone, in a context where transformers gives the difference a meaning.
std::pair<Json, Json> variants(const std::string& key, const Json& base, int layers) {
  Json a = base, b = base;
  // The old RoPE keys are tried without rope_parameters, which would otherwise disagree with them.
  for (const char* old : {"rope_theta", "rotary_emb_base", "global_rope_theta", "rope_scaling", "partial_rotary_factor", "rotary_pct",
                          "rope_local_base_freq", "local_rope_theta"})
    if (key == old) a.erase("rope_parameters"), b.erase("rope_parameters");
  const auto all = [&](const char* kind) { return Json(std::vector<std::string>(static_cast<std::size_t>(layers), kind)); };
  // A base or a rotated share: the value the file already gives (under any of its names, so that
  // `a` agrees with it) against another one.
  const auto current = [&](std::initializer_list<const char*> names, double otherwise) {
    for (const char* n : names)
      if (base.contains(n) && base[n].is_number()) return base[n].get<double>();
    return otherwise;
  };
  if (key == "rope_theta" || key == "rotary_emb_base" || key == "global_rope_theta") {
    a[key] = current({"rope_theta", "rotary_emb_base", "global_rope_theta"}, 1234.5);
    b[key] = a[key].get<double>() * 2 + 1;
  } else if (key == "partial_rotary_factor" || key == "rotary_pct") {
    a[key] = current({"partial_rotary_factor", "rotary_pct"}, 1.0);
    b[key] = a[key].get<double>() == 1.0 ? 0.5 : 1.0;
  }
  else if (key == "rotary_dim") a[key] = 2, b[key] = 4;
  else if (key == "rope_local_base_freq" || key == "local_rope_theta") a[key] = 555.0, b[key] = 666.0;
  else if (key == "rope_scaling") a[key] = {{"rope_type", "linear"}, {"factor", 3.0}}, b[key] = {{"rope_type", "linear"}, {"factor", 5.0}};
  else if (key == "rope_parameters") {
    for (Json* j : {&a, &b}) j->erase("rope_scaling");
    a[key] = {{"rope_type", "default"}, {"rope_theta", 300.0}}, b[key] = {{"rope_type", "default"}, {"rope_theta", 700.0}};
    if (base.contains("global_head_dim"))  // Gemma 4: its full layers' heads are wider, and only proportional RoPE fits them
      for (Json* j : {&a, &b}) (*j)[key]["rope_type"] = "proportional", (*j)[key]["partial_rotary_factor"] = 0.25;
    for (Json* j : {&a, &b})
      for (const char* old : {"rope_theta", "rotary_emb_base", "global_rope_theta", "rope_local_base_freq", "local_rope_theta"}) j->erase(old);
  } else if (key == "max_position_embeddings" || key == "n_positions") a[key] = 300, b[key] = 400;
  else if (key == "original_max_position_embeddings") a[key] = 32, b[key] = 64;
  else if (key == "sliding_window" || key == "local_attention") a[key] = 4, b[key] = 6;
  else if (key == "layer_types") a[key] = all("full_attention"), b[key] = all("sliding_attention");
  else if (key == "use_sliding_window") a[key] = false, b[key] = true;
  else if (key == "max_window_layers") a[key] = 0, b[key] = 1;
  else if (key == "sliding_window_pattern" || key == "global_attn_every_n_layers" || key == "no_rope_layer_interval")
    a[key] = 2, b[key] = 3;
  else if (key == "no_rope_layers") a[key] = Json(std::vector<int>(static_cast<std::size_t>(layers), 1)), b[key] = Json(std::vector<int>(static_cast<std::size_t>(layers), 0));
  else if (key == "relative_attention_num_buckets") a[key] = 16, b[key] = 32;
  else if (key == "relative_attention_max_distance") a[key] = 64, b[key] = 128;
  else if (key == "attention_chunk_size") a[key] = nullptr, b[key] = 8192;
  else if (key == "attn_temperature_tuning") a[key] = false, b[key] = true;
  else if (key == "floor_scale") a[key] = 4, b[key] = 8;
  else if (key == "attn_scale") a[key] = 0.5, b[key] = 0.25;
  else if (key == "use_qk_norm") a[key] = false, b[key] = true;
  else if (key == "rope_interleave") a[key] = true, b[key] = false;
  else if (key == "qk_rope_head_dim") a[key] = 8, b[key] = 4;
  else if (key == "use_bidirectional_attention") a[key] = false, b[key] = true;
  else if (key == "position_embedding_type") a[key] = "absolute", b[key] = "relative_key";
  else if (key == "poslab_positions") a[key] = "rope", b[key] = "none";
  else if (key == "global_head_dim") a[key] = 16, b[key] = 32;
  else if (key == "num_global_key_value_heads") a[key] = 1, b[key] = 2;
  else if (key == "attention_k_eq_v") a[key] = false, b[key] = true;
  else if (key == "num_kv_shared_layers") a[key] = 0, b[key] = 2;
  else if (key == "per_layer_config") {
    a[key] = nullptr;
    b[key] = Json::object();
    for (int l = 0; l < layers; ++l)
      if (l == layers - 1 || base["layer_types"][static_cast<std::size_t>(l)] == "full_attention") b[key][std::to_string(l)] = {{"head_dim", 32}};
    for (Json* j : {&a, &b}) j->erase("global_head_dim");
  }
  else if (key == "poslab_rope_fraction") a[key] = 0.5, b[key] = 1.0;
  else if (key == "poslab_t5_buckets") a[key] = 16, b[key] = 32;
  else if (key == "poslab_t5_max_distance") a[key] = 64, b[key] = 128;
  else ADD_FAILURE() << "the test has no variants for \"" << key << "\": add them";
  // Context that gives window keys a meaning.
  if (key == "max_window_layers" || key == "use_sliding_window" || key == "layer_types")
    for (Json* j : {&a, &b}) (*j)["sliding_window"] = 4, (*j)["use_sliding_window"] = key == "use_sliding_window" ? (*j)["use_sliding_window"] : Json(true);
  if (key == "use_sliding_window")
    for (Json* j : {&a, &b}) (*j)["max_window_layers"] = 0;
  if (key == "sliding_window_pattern" || key == "global_attn_every_n_layers" || key == "max_window_layers" || key == "use_sliding_window")
    for (Json* j : {&a, &b}) j->erase("layer_types");
  if (key == "no_rope_layer_interval")
    for (Json* j : {&a, &b}) j->erase("no_rope_layers");
  // Gemma 4: the full layers' own key/value heads count with attention_k_eq_v, which needs them.
  if (key == "num_global_key_value_heads") a["attention_k_eq_v"] = b["attention_k_eq_v"] = true;
  if (key == "attention_k_eq_v") a["num_global_key_value_heads"] = b["num_global_key_value_heads"] = 1;
  return {a, b};
}

class PositionalKeys : public ::testing::TestWithParam<std::string> {};

TEST_P(PositionalKeys, EveryPositionalKeyIsReadOrRefusedByName) {
  const Json base = folder_config(GetParam());
  auto parsed = parse_transformer_config(base.dump(), "config.json");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto keys = positional_keys(*parsed->arch);
  ASSERT_FALSE(keys.empty());
  for (const PositionalKey& k : keys) {
    SCOPED_TRACE(GetParam() + " / " + k.key);
    // A wrapper's language model reads its text_config: the key is changed there.
    const bool wrapped = base.contains("text_config");
    auto [a, b] = variants(k.key, wrapped ? base["text_config"] : base, parsed->layers);
    if (wrapped) {
      Json wa = base, wb = base;
      wa["text_config"] = a, wb["text_config"] = b;
      a = wa, b = wb;
    }
    auto ca = parse_transformer_config(a.dump(), "config.json");
    auto cb = parse_transformer_config(b.dump(), "config.json");
    ASSERT_TRUE(ca) << ca.error();
    if (k.action == KeyAction::Refused) {
      ASSERT_FALSE(cb) << "\"" << k.key << "\" must be refused";
      EXPECT_NE(cb.error().find("\"" + k.key + "\""), std::string::npos) << cb.error();
      continue;
    }
    if (!cb) {  // a value refused for what it is, by name
      EXPECT_NE(cb.error().find(k.key), std::string::npos) << cb.error();
      continue;
    }
    EXPECT_NE(positional_signature(*ca), positional_signature(*cb)) << "\"" << k.key << "\" was neither read nor refused";
  }
}

INSTANTIATE_TEST_SUITE_P(Families, PositionalKeys,
                         ::testing::Values("llama", "llama_v5", "qwen2", "gpt2", "poslab_rope", "neox", "gptj", "bloom", "opt", "qwen3",
                                           "mistral", "gemma2", "gemma3", "gemma3_v5", "phi3", "smollm3", "bert", "modernbert", "t5",
                                           "olmo2", "olmo3", "gemma3_mm", "mistral3", "qwen2_5_vl", "qwen2_5_vl_v5", "qwen3_vl",
                                           "qwen3_moe", "mixtral", "gpt_oss", "llama4", "llama4_mm", "deepseek_v3", "deepseek_v2_lite", "gemma4",
                                           "gemma4_moe", "gemma4_mm"));

TEST(PositionalKeys, TheDocsTableIsTheCodesTable) {
  std::ifstream in(fs::path(POSLAB_TEST_DATA).parent_path().parent_path() / "docs" / "CONFIG_KEYS.md");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string table = positional_keys_markdown();
  EXPECT_NE(text.str().find(table), std::string::npos)
      << "docs/CONFIG_KEYS.md's table is not the code's; the table is:\n" << table;
}

TEST(PositionalKeys, InfoSaysWhereEachRopeValueCameFrom) {
  auto c = parse_transformer_config(folder_config("llama_v5").dump(), "config.json");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->rope_theta, 100.0);
  EXPECT_EQ(describe_rope_sources(*c), "base 100 from rope_parameters.rope_theta; scaling none; rotated share 1 from the family's default");
  auto g = parse_transformer_config(folder_config("gemma3_v5").dump(), "config.json");
  ASSERT_TRUE(g) << g.error();
  EXPECT_EQ(describe_rope_sources(*g),
            "base 50000 from rope_parameters.full_attention.rope_theta; scaling linear from rope_parameters.full_attention; "
            "rotated share 1 from the family's default; local base 500 from rope_parameters.sliding_attention.rope_theta");
}

}  // namespace
}  // namespace poslab

namespace poslab {
namespace {

// A message names the key the file has (issue 36): BERT's layer_norm_eps, T5's num_heads and
// d_model, not the names other families use; an index that is not JSON says so.
TEST(ConfigMessages, NameTheKeyTheFileHas) {
  Json bert = folder_config("bert");
  bert["layer_norm_eps"] = 0.0;
  auto b = parse_transformer_config(bert.dump(), "config.json");
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().find("\"layer_norm_eps\" must be greater than 0"), std::string::npos) << b.error();
  Json t5 = folder_config("t5");
  t5["num_key_value_heads"] = 3;
  auto t = parse_transformer_config(t5.dump(), "config.json");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("must divide num_heads"), std::string::npos) << t.error();
  const poslab::test_support::TempFolder tmp("index");
  const fs::path dir = tmp / "qwen2";
  fs::copy(reference_dir() / "qwen2", dir);
  std::ofstream(dir / "model.safetensors.index.json") << "{\"weight_map\": ";
  auto opened = Checkpoint::open(dir);
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().find("model.safetensors.index.json: not valid JSON"), std::string::npos) << opened.error();
}

}  // namespace
}  // namespace poslab

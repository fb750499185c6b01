// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// Real models: PosLab's forward pass against an independent one. The folders and their
// references are written at test time by tests/reference/make_model_reference.py (NumPy, from
// Hugging Face's definitions of Llama, Qwen2 and GPT-2; not from PosLab's code) into the build
// folder: every layer's attention weights, the logits, the loss and the frequency usage, for the
// unchanged model and each intervention on its positions.
#include <gtest/gtest.h>

#include <cstring>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <unistd.h>

#include "base/memory.hpp"
#include "core/model/forward.hpp"
#include "core/model/layer_ops.hpp"
#include "core/model/model_run.hpp"
#include "core/model/model_worker.hpp"
#include "temp_folder.hpp"

namespace poslab {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

fs::path reference_dir() { return fs::path(POSLAB_MODEL_REFERENCE); }

Json read_json(const fs::path& p) {
  std::ifstream in(p);
  EXPECT_TRUE(in.good()) << p << " is missing: ctest runs ModelReference.Generate first";
  return Json::parse(in);
}

std::shared_ptr<const Checkpoint> open_model(const std::string& name) {
  auto model = Checkpoint::open(reference_dir() / name);
  EXPECT_TRUE(model) << (model ? "" : model.error());
  return model ? *model : nullptr;
}

// The intervention each reference case names.
PositionIntervention intervention_for(const std::string& c) {
  PositionIntervention v;
  if (c == "rope_theta_10000") v.rope_theta = 10000.0;
  if (c == "rope_theta_1000") v.rope_theta = 1000.0;
  if (c == "rope_off" || c == "wpe_zero" || c == "positions_off") v.positions_off = true;
  if (c == "interleaved") v.pairing = RopeStyle::Interleaved;
  if (c == "rope_style_half") v.pairing = RopeStyle::Half;
  if (c == "rotary_dim_8") v.rotary_dim = 8;
  if (c == "alibi_scale_0.5") v.alibi_scale = 0.5;
  if (c == "position_shift_3") v.position_shift = 3;
  if (c == "window_none") v.window = 0;
  if (c == "window_6") v.window = 6;
  if (c == "local_base_1000") v.local_base = 1000.0;
  if (c == "rope_factors_short") v.rope_factors = LongRopeSet::Short;
  if (c == "rope_factors_long") v.rope_factors = LongRopeSet::Long;
  if (c == "linear_4") v.scaling = RopeScaling{RopeScalingType::Linear, 4.0};
  if (c == "drop_high_0.5") v.drop_pairs = DropPairs{true, 0.5};
  if (c == "drop_low_0.25") v.drop_pairs = DropPairs{false, 0.25};
  if (c == "wpe_shift_3") v.position_shift = 3;
  if (c == "sinks_off") v.sinks_off = true;
  if (c == "chunk_none") v.chunk = 0;
  if (c == "chunk_2") v.chunk = 2;
  return v;
}

// max |a − b| / max |b|: the relative error of a whole tensor.
double relative_error(const Matrix& a, const Json& b) {
  double worst = 0.0, scale = 0.0;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double ref = b[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)].get<double>();
      worst = std::max(worst, std::abs(a(i, j) - ref));
      scale = std::max(scale, std::abs(ref));
    }
  return worst / scale;
}

class RealModel : public ::testing::TestWithParam<std::string> {};

TEST_P(RealModel, EveryLayerLogitsAndLossMatchTheReferenceInEveryCase) {
  const std::string name = GetParam();
  auto model = open_model(name);
  ASSERT_TRUE(model);
  const Json ref = read_json(reference_dir() / (name + ".reference.json"));
  const std::vector<int> ids = ref["ids"].get<std::vector<int>>();
  ASSERT_FALSE(ref["cases"].empty());
  for (const auto& [case_name, expected] : ref["cases"].items()) {
    SCOPED_TRACE(name + " / " + case_name);
    ForwardOptions options;
    options.intervention = intervention_for(case_name);
    options.all_layers = true;
    options.keep_logits = true;
    options.top_activations = 5;
    auto r = run_forward(*model, ids, options);
    ASSERT_TRUE(r) << r.error();
    const TransformerConfig& c = model->config();
    ASSERT_EQ(r->layers.size(), static_cast<std::size_t>(c.layers));
    double worst_weight = 0.0;
    for (int l = 0; l < c.layers; ++l)
      for (int h = 0; h < c.heads; ++h) {
        const Matrix& A = r->layers[static_cast<std::size_t>(l)].weights[static_cast<std::size_t>(h)];
        const Json& E = expected["attention"][static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
        for (Eigen::Index i = 0; i < A.rows(); ++i)
          for (Eigen::Index j = 0; j < A.cols(); ++j)
            worst_weight = std::max(worst_weight, std::abs(A(i, j) - E[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)].get<double>()));
      }
    EXPECT_LE(worst_weight, 1e-4);
    EXPECT_LE(relative_error(r->logits, expected["logits"]), 1e-4);
    const double loss = expected["loss"].get<double>();
    EXPECT_LE(std::abs(r->loss - loss) / loss, 1e-4) << r->loss << " vs " << loss;
    if (expected.contains("experts")) {  // a mixture: each position's experts and their weights
      const Json& E = expected["experts"];
      ASSERT_EQ(r->experts.size(), E.size());
      for (std::size_t l = 0; l < E.size(); ++l) {
        ASSERT_EQ(r->experts[l].size(), E[l].size()) << "layer " << l;
        for (std::size_t t = 0; t < E[l].size(); ++t) {
          ASSERT_EQ(r->experts[l][t].size(), E[l][t].size());
          for (std::size_t k = 0; k < E[l][t].size(); ++k) {
            EXPECT_EQ(r->experts[l][t][k].first, E[l][t][k][0].get<int>()) << "layer " << l << " position " << t;
            EXPECT_NEAR(r->experts[l][t][k].second, E[l][t][k][1].get<double>(), 1e-4);
          }
        }
      }
    }
    if (expected.contains("residual_top")) {  // the massive-activations lens: each layer's largest |x|
      const Json& E = expected["residual_top"];
      ASSERT_EQ(r->activations.size(), E.size());
      for (std::size_t l = 0; l < E.size(); ++l) {
        ASSERT_EQ(r->activations[l].top.size(), E[l].size());
        for (std::size_t k = 0; k < E[l].size(); ++k) {
          const auto& got = r->activations[l].top[k];
          const double value = E[l][k][2].get<double>();
          EXPECT_NEAR(got.value, value, 1e-4 * (1.0 + std::abs(value))) << "layer " << l << " rank " << k;
          if (k == 0) EXPECT_EQ(std::make_pair(got.position, got.dim), std::make_pair(E[l][k][0].get<int>(), E[l][k][1].get<int>()));
        }
        const double median = expected["residual_median"][l].get<double>();
        EXPECT_NEAR(r->activations[l].median_abs, median, 1e-4 * (1.0 + median));
      }
    }
    if (expected.contains("sink")) {  // GPT-OSS: each query's share of the row that went to the head's learned sink
      double worst_sink = 0.0;
      for (int l = 0; l < c.layers; ++l) {
        const LayerAttention& a = r->layers[static_cast<std::size_t>(l)];
        const bool none = case_name == "sinks_off";
        ASSERT_EQ(a.sink_share.size(), none ? 0u : static_cast<std::size_t>(c.heads)) << "layer " << l;
        for (std::size_t h = 0; h < a.sink_share.size(); ++h)
          for (Eigen::Index t = 0; t < a.sink_share[h].size(); ++t)
            worst_sink = std::max(worst_sink, std::abs(a.sink_share[h](t) - expected["sink"][static_cast<std::size_t>(l)][h][static_cast<std::size_t>(t)].get<double>()));
      }
      EXPECT_LE(worst_sink, 1e-4);
    }
    if (expected.contains("score_position")) {  // DeepSeek: the scores' content and position parts, where a key is seen
      double worst_part = 0.0;
      for (int l = 0; l < c.layers; ++l) {
        const LayerAttention& a = r->layers[static_cast<std::size_t>(l)];
        ASSERT_EQ(a.score_position.size(), static_cast<std::size_t>(c.heads)) << "layer " << l;
        for (std::size_t h = 0; h < a.score_position.size(); ++h)
          for (Eigen::Index i = 0; i < a.score_position[h].rows(); ++i)
            for (Eigen::Index j = 0; j <= i; ++j)
              for (const auto& [part, key] : {std::pair{&a.score_position[h], "score_position"}, std::pair{&a.score_content[h], "score_content"}})
                worst_part = std::max(worst_part, std::abs((*part)(i, j) - expected[key][static_cast<std::size_t>(l)][h][static_cast<std::size_t>(i)]
                                                                                   [static_cast<std::size_t>(j)].get<double>()));
      }
      EXPECT_LE(worst_part, 1e-4);
    }
    if (expected.contains("frequency_usage"))
      for (int l = 0; l < c.layers; ++l)
        EXPECT_LE(relative_error(r->layers[static_cast<std::size_t>(l)].frequency_usage, expected["frequency_usage"][static_cast<std::size_t>(l)]), 1e-4);
  }
}

TEST_P(RealModel, TheTokenizerGivesTheReferenceIds) {
  auto model = open_model(GetParam());
  ASSERT_TRUE(model);
  const Json ref = read_json(reference_dir() / (GetParam() + ".reference.json"));
  for (const auto& [text, ids] : ref["texts"].items()) {
    auto got = model_tokens(*model, text);
    ASSERT_TRUE(got) << got.error();
    EXPECT_EQ(*got, ids.get<std::vector<int>>()) << text;
  }
}

INSTANTIATE_TEST_SUITE_P(Folders, RealModel,
                         ::testing::Values("llama", "llama_v5", "llama_v5_llama3", "qwen2", "gpt2", "gpt2_prefixed", "poslab_none", "poslab_sinusoidal",
                                           "poslab_learned", "poslab_alibi", "poslab_t5", "poslab_rope", "neox", "gptj", "bloom",
                                           "opt", "qwen3", "mistral", "gemma2", "gemma3", "gemma3_v5", "phi3", "phi3_short",
                                           "smollm3", "olmo2", "olmo3", "gemma3_mm", "mistral3", "qwen2_5_vl", "qwen2_5_vl_v5", "qwen3_vl",
                                           "qwen3_moe", "qwen3_moe_fused", "mixtral", "mixtral_window", "gpt_oss", "gpt_oss_bf16",
                                           "llama4", "llama4_mm", "deepseek_v3", "deepseek_v3_bf16", "deepseek_v2_lite", "gemma4",
                                           "gemma4_moe", "gemma4_mm"));

// A model's weights are packed once for the products while it is open (layer_ops'
// keep_packed_weights): the second forward uses the packs and gives the same logits, bit for bit,
// as products that pack as they go (past a quarter of the memory budget); closing the model drops
// its packs.
TEST(RealModelPacking, WeightsPackedOnceGiveTheSameLogitsAndGoWithTheModel) {
  const std::uint64_t before = packed_weight_bytes();
  ForwardOptions options;
  options.keep_logits = true;
  const std::vector<int> ids = {5, 17, 3, 42, 8, 11, 29};
  Matrix all_packed, some_packed;
  std::uint64_t whole = 0;
  {
    auto model = open_model("llama");
    ASSERT_TRUE(model);
    auto first = run_forward(*model, ids, options);
    ASSERT_TRUE(first) << first.error();
    whole = packed_weight_bytes() - before;
    EXPECT_GT(whole, 0u) << "the first forward packs the weights";
    auto second = run_forward(*model, ids, options);
    ASSERT_TRUE(second) << second.error();
    EXPECT_EQ(packed_weight_bytes() - before, whole) << "and the second uses them";
    EXPECT_EQ(first->logits, second->logits);
    all_packed = second->logits;
  }
  EXPECT_EQ(packed_weight_bytes(), before) << "closing the model drops its packs";
  // A budget whose quarter holds half the packs: the rest are packed as the products go.
  set_memory_limit(2 * whole, "a test's limit");
  {
    auto model = open_model("llama");
    ASSERT_TRUE(model);
    auto r = run_forward(*model, ids, options);
    ASSERT_TRUE(r) << r.error();
    const std::uint64_t kept = packed_weight_bytes() - before;
    EXPECT_LE(kept, whole / 2) << "no more than a quarter of the budget kept";
    EXPECT_LT(kept, whole);
    some_packed = r->logits;
  }
  set_memory_limit(0, "");
  ASSERT_EQ(all_packed.rows(), some_packed.rows());
  ASSERT_EQ(all_packed.cols(), some_packed.cols());
  EXPECT_EQ(0, std::memcmp(all_packed.data(), some_packed.data(), sizeof(float) * static_cast<std::size_t>(all_packed.size())));
}

TEST(RealModelConfig, ReadsTheArchitectureAndItsSizes) {
  auto llama = open_model("llama");
  auto qwen = open_model("qwen2");
  auto gpt2 = open_model("gpt2");
  ASSERT_TRUE(llama && qwen && gpt2);
  EXPECT_EQ(llama->config().arch->name, "llama");
  EXPECT_EQ(llama->config().kv_heads, 2);
  EXPECT_EQ(llama->config().head_dim, 8);
  EXPECT_EQ(llama->config().scaling.type, RopeScalingType::Llama3);
  EXPECT_TRUE(llama->config().tie_embeddings);
  EXPECT_EQ(llama->dtype(), "BF16");
  EXPECT_EQ(qwen->config().arch->name, "qwen2");
  EXPECT_EQ(qwen->config().head_dim, 16);
  EXPECT_TRUE(qwen->config().attention_bias);
  EXPECT_FALSE(qwen->config().tie_embeddings);
  EXPECT_EQ(gpt2->config().arch->name, "gpt2");
  EXPECT_EQ(gpt2->config().intermediate, 4 * 48);
  EXPECT_EQ(gpt2->config().activation, Activation::GeluTanh);
}

TEST(RealModelErrors, BadFoldersAreClearErrors) {
  struct Case {
    const char* folder;
    std::vector<std::string> words;
  };
  for (const Case& c : {Case{"bad_missing_tensor", {"model.layers.1.mlp.up_proj.weight", "missing"}},
                        Case{"bad_shape", {"model.layers.0.self_attn.k_proj.weight", "[24, 64]", "[16, 64]"}},
                        Case{"bad_arch", {"XLNetLMHeadModel", "supported"}},
                        Case{"bad_shard", {"model-00003-of-00003.safetensors", "not in the folder"}},
                        Case{"bad_mxfp4_scales", {"gate_up_proj_scales", "4 × 64 × 1", "4 × 64 × 2"}},
                        Case{"bad_mxfp4_dtype", {"down_proj_blocks", "dtype I8", "MXFP4 is stored as U8"}}}) {
    auto model = Checkpoint::open(reference_dir() / c.folder);
    ASSERT_FALSE(model) << c.folder;
    for (const std::string& w : c.words) EXPECT_NE(model.error().find(w), std::string::npos) << model.error();
  }
  EXPECT_FALSE(Checkpoint::open(reference_dir() / "no_such_folder"));
}

// A copy of a reference folder, made in `tmp`, whose config.json has `key` set to `value` (JSON text).
fs::path folder_with(const fs::path& tmp, const std::string& model, const std::string& key, const std::string& value) {
  const fs::path dir = tmp / model;
  fs::copy(reference_dir() / model, dir, fs::copy_options::recursive);
  Json config = read_json(dir / "config.json");
  config[key] = Json::parse(value);
  std::ofstream(dir / "config.json") << config.dump(2);
  return dir;
}

TEST(RealModelErrors, ConfigValuesWithoutMeaningAreRefusedNamingTheKey) {
  struct Case {
    const char *model, *key, *value, *words;
  };
  for (const Case& c : {Case{"llama", "rope_theta", "0", "\"rope_theta\" must be greater than 1"},
                        Case{"llama", "rope_theta", "-10000", "\"rope_theta\" must be greater than 1"},
                        Case{"qwen2", "rope_theta", "1", "\"rope_theta\" must be greater than 1"},
                        Case{"llama", "rms_norm_eps", "-1", "\"rms_norm_eps\" must be greater than 0"},
                        Case{"gpt2", "layer_norm_epsilon", "0", "must be greater than 0"},
                        Case{"gpt2", "n_positions", "0", "must be at least 1"},
                        // Sized by config.json alone, this would take ~100 GB before any tensor is read.
                        Case{"llama", "num_hidden_layers", "100000000", "says 100000000 layers, but the files hold 2"},
                        Case{"gpt2", "n_layer", "3", "says 3 layers, but the files hold 2"}}) {
    const poslab::test_support::TempFolder tmp("config");
    const fs::path dir = folder_with(tmp, c.model, c.key, c.value);
    auto model = Checkpoint::open(dir);
    ASSERT_FALSE(model) << c.model << " " << c.key << " = " << c.value;
    EXPECT_NE(model.error().find(c.words), std::string::npos) << model.error();
  }
}

// One NaN in a weight made every probability print as null with exit 0: the forward pass now says
// where the numbers stop being finite.
TEST(RealModelErrors, ANanWeightIsReportedWithItsLayerNotPrinted) {
  const poslab::test_support::TempFolder tmp("config");
  const fs::path dir = folder_with(tmp, "llama", "vocab_size", std::to_string(read_json(reference_dir() / "llama" / "config.json")["vocab_size"].get<int>()));
  std::string header_text;
  {
    std::ifstream in(dir / "model.safetensors", std::ios::binary);
    std::uint64_t length = 0;
    in.read(reinterpret_cast<char*>(&length), 8);
    header_text.resize(length);
    in.read(header_text.data(), static_cast<std::streamsize>(length));
  }
  const Json header = Json::parse(header_text);
  const std::string name = "model.layers.1.mlp.up_proj.weight";
  ASSERT_TRUE(header.contains(name));
  const std::string dtype = header[name]["dtype"].get<std::string>();
  const std::uint64_t at = 8 + header_text.size() + header[name]["data_offsets"][0].get<std::uint64_t>();
  {
    std::fstream f(dir / "model.safetensors", std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(at));
    const float nan = std::nanf("");
    if (dtype == "F32") f.write(reinterpret_cast<const char*>(&nan), 4);
    else f.write("\xC0\x7F", 2);  // a NaN in BF16 and in F16 alike (exponent all ones, mantissa set)
  }
  auto model = Checkpoint::open(dir);
  ASSERT_TRUE(model) << model.error();
  auto ids = model_tokens(**model, "hello world");
  ASSERT_TRUE(ids);
  auto r = run_forward(**model, *ids, {});
  ASSERT_FALSE(r) << "a NaN weight gave a result (loss " << r->loss << ")";
  EXPECT_NE(r.error().find("not finite"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("layer 1's MLP"), std::string::npos) << r.error();
}

TEST(RealModelErrors, InterventionValuesWithoutMeaningAreRefused) {
  auto llama = open_model("llama");
  ASSERT_TRUE(llama);
  ForwardOptions o;
  o.intervention.rope_theta = 0.0;
  auto r = run_forward(*llama, {1, 2, 3}, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("greater than 1"), std::string::npos) << r.error();
  o.intervention.rope_theta.reset();
  o.intervention.scaling = RopeScaling{RopeScalingType::Linear, 0.5};
  EXPECT_FALSE(run_forward(*llama, {1, 2, 3}, o));
}

// predict with 20 000 tokens on a tiny model took 12.7 GB: the pass is now measured first.
TEST(RealModelErrors, AForwardPassOverTheMemoryBudgetIsRefusedFirst) {
  auto llama = open_model("llama");
  ASSERT_TRUE(llama);
  set_memory_limit(256ull << 20, "--memory-limit 256M");
  // Layer 0's scores and weights kept, as a view of it keeps them: 4 heads' 20,000² matrices.
  ForwardOptions keep;
  keep.keep_layers = {0};
  auto r = run_forward(*llama, std::vector<int>(20000, 5), keep);
  auto small = run_forward(*llama, std::vector<int>(12, 5), {});
  set_memory_limit(0, "");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("the forward pass over 20000 tokens would need"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("use a shorter sentence"), std::string::npos) << r.error();
  EXPECT_TRUE(small) << small.error();
}

// The architecture table is data a new family is added to: every row's tensors have one role
// each, a layer's names hold "{L}" and the model's own do not, and each row needs an embedding
// table, a final norm and attention weights (fused or not).
TEST(ArchitectureTable, EveryRowIsCompleteAndConsistent) {
  for (const Architecture& a : architectures()) {
    // A role once per stack (T5's encoder and decoder layers both have q), or once per need (T5's
    // up projection is wi for ReLU, wi_1 for gated GELU).
    // A mixture's experts have each role twice: one tensor per expert, and all stacked in one
    // (GPT-OSS's stacked twice: MXFP4 blocks, or dequantized).
    std::set<std::tuple<TensorRole, bool, Need, bool, bool>> roles;
    for (const TensorSlot& s : a.tensors) {
      EXPECT_TRUE(roles.insert({s.role, s.decoder, s.need, s.stacked, s.mxfp4}).second) << a.name << ": " << s.name << " repeats a role";
      EXPECT_EQ(is_layer_role(s.role), s.name.find("{L}") != std::string::npos) << a.name << ": " << s.name;
      EXPECT_NE(s.rows, Dim::None) << a.name << ": " << s.name;
    }
    for (TensorRole r : {TensorRole::Embed, TensorRole::O}) EXPECT_TRUE(a.slot(r)) << a.name;
    // An MLP's output projection, or a mixture's experts'; a norm before the attention, or (OLMo 2)
    // after it.
    EXPECT_TRUE(a.slot(TensorRole::Down) || (a.moe != MoeKind::None && a.slot(TensorRole::ExpertDown))) << a.name;
    EXPECT_TRUE(a.slot(TensorRole::AttnNorm) || a.slot(TensorRole::PostAttnNorm)) << a.name;
    // Post-LN (BERT) ends on its last layer's norm; every pre-LN stack has a final one.
    EXPECT_EQ(a.slot(TensorRole::FinalNorm) != nullptr, a.norm_placement == NormPlacement::Pre) << a.name;
    EXPECT_EQ(a.slot(TensorRole::DecoderFinalNorm) != nullptr, a.stacks == Stacks::EncoderDecoder) << a.name;
    EXPECT_EQ(a.slot(TensorRole::CrossQ) != nullptr, a.stacks == Stacks::EncoderDecoder) << a.name;
    EXPECT_EQ(a.slot(TensorRole::HeadDense) != nullptr, a.head == OutputHead::MaskedLm) << a.name;
    // Only a parallel block may do without the MLP's own norm (GPT-J's MLP reads the attention's).
    EXPECT_TRUE(a.slot(TensorRole::MlpNorm) || a.slot(TensorRole::PostMlpNorm) || a.residual == Residual::Parallel) << a.name;
    // DeepSeek's latent attention has q (or q_a and q_b) and kv_a, kv_b instead of k and v.
    EXPECT_TRUE(a.slot(TensorRole::Qkv) || (a.slot(TensorRole::Q) && a.slot(TensorRole::K) && a.slot(TensorRole::V)) ||
                (a.latent_attention && a.slot(TensorRole::KvA) && a.slot(TensorRole::KvB)))
        << a.name;
    // A gated MLP has its gate; a plain one none, unless config.json can make it gated (T5's wi_0).
    const TensorSlot* gate = a.slot(TensorRole::Gate);
    const bool gate_by_config = gate && gate->need == Need::IfGatedMlp;
    EXPECT_EQ(a.mlp == MlpKind::Gated,
              (gate != nullptr && !gate_by_config) || a.slot(TensorRole::GateUp) != nullptr || a.slot(TensorRole::ExpertGate) != nullptr ||
                  a.slot(TensorRole::ExpertGateUp) != nullptr)
        << a.name;
    EXPECT_FALSE(a.slot(TensorRole::Gate) && a.slot(TensorRole::GateUp)) << a.name;
    EXPECT_FALSE(a.title.empty()) << a.name;
    EXPECT_EQ(a.norm == NormKind::Layer, a.slot(TensorRole::AttnNormBias) != nullptr) << a.name;
  }
}

TEST(RealModelErrors, GptTwoPositionsPastItsTableAreAnError) {
  auto gpt2 = open_model("gpt2");
  ASSERT_TRUE(gpt2);
  ForwardOptions o;
  o.intervention.position_shift = 60;  // 12 tokens from 60 run past the 64 rows of wpe
  auto r = run_forward(*gpt2, std::vector<int>(12, 5), o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("positions 0 … 63"), std::string::npos) << r.error();
  EXPECT_FALSE(run_forward(*gpt2, {100000}, {}));
}

// A Hugging Face cache folder: models--ORG--NAME/snapshots/REV holds symlinks into blobs/, and
// refs/main names the revision.
TEST(RealModelFolder, OpensAHuggingFaceCacheFolder) {
  const poslab::test_support::TempFolder tmp("hf-cache");
  const fs::path cache = tmp / "models--poslab--tiny-llama";
  fs::create_directories(cache / "blobs");
  fs::create_directories(cache / "snapshots" / "0123abcd");
  fs::create_directories(cache / "refs");
  std::ofstream(cache / "refs" / "main") << "0123abcd";
  for (const auto& entry : fs::directory_iterator(reference_dir() / "llama")) {
    const fs::path blob = cache / "blobs" / ("blob-" + entry.path().filename().string());
    fs::copy_file(entry.path(), blob);
    fs::create_symlink(fs::path("../../blobs") / blob.filename(), cache / "snapshots" / "0123abcd" / entry.path().filename());
  }
  auto model = Checkpoint::open(cache);
  ASSERT_TRUE(model) << model.error();
  EXPECT_EQ((*model)->folder().filename(), "0123abcd");
  auto direct = open_model("llama");
  const std::vector<int> ids = {296, 260, 258, 266};
  auto a = run_forward(**model, ids, {});
  auto b = run_forward(*direct, ids, {});
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->loss, b->loss);
}

TEST(RealModelForward, TopTokensArePredictionsSortedWithTheirProbabilities) {
  auto model = open_model("qwen2");
  ASSERT_TRUE(model);
  ForwardOptions o;
  o.keep_logits = true;
  o.top_k = 3;
  auto r = run_forward(*model, {1, 2, 3, 4}, o);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->top.size(), 4u);
  for (std::size_t t = 0; t < 4; ++t) {
    ASSERT_EQ(r->top[t].size(), 3u);
    Eigen::Index best = 0;
    r->logits.row(static_cast<Eigen::Index>(t)).maxCoeff(&best);
    EXPECT_EQ(r->top[t][0].id, best);
    EXPECT_GE(r->top[t][0].p, r->top[t][1].p);
    EXPECT_GE(r->top[t][1].p, r->top[t][2].p);
    const Eigen::VectorXd row = r->logits.row(static_cast<Eigen::Index>(t)).cast<double>().transpose();
    const double p0 = 1.0 / (row.array() - row(best)).exp().sum();
    EXPECT_NEAR(r->top[t][0].p, p0, 1e-6);
  }
  EXPECT_NEAR(r->perplexity, std::exp(r->loss), 1e-9 * r->perplexity);
}

TEST(RealModelForward, HeadSummariesDescribeTheWeights) {
  auto model = open_model("llama");
  ASSERT_TRUE(model);
  ForwardOptions o;
  o.keep_layers = {1};
  auto r = run_forward(*model, {296, 260, 258, 266, 273, 258}, o);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->layers.size(), 1u);
  const LayerAttention& layer = *r->layer(1);
  ASSERT_EQ(layer.heads.size(), 8u);
  const Matrix& A = layer.weights[3];
  double sink = 0, prev = 0, dist = 0;
  for (int i = 0; i < 6; ++i) {
    sink += A(i, 0);
    if (i > 0) prev += A(i, i - 1);
    for (int j = 0; j <= i; ++j) dist += A(i, j) * (i - j);
  }
  EXPECT_NEAR(layer.heads[3].sink, sink / 6, 1e-6);
  EXPECT_NEAR(layer.heads[3].previous_token, prev / 5, 1e-6);
  EXPECT_NEAR(layer.heads[3].mean_distance, dist / 6, 1e-6);
  // Token 258 repeats once: at 5, last seen at 2, so the induction score is the weight on 3.
  EXPECT_NEAR(layer.heads[3].induction, A(5, 3), 1e-6);
}

TEST(RealModelForward, ShufflingKeepsTheBosTokenFirst) {
  auto model = open_model("llama");
  ASSERT_TRUE(model);
  const std::vector<int> ids = {296, 260, 258, 266, 273, 258};
  const auto shuffled = shuffle_tokens(*model, ids, 3);
  EXPECT_EQ(shuffled[0], 296);
  EXPECT_NE(shuffled, ids);
  EXPECT_TRUE(std::is_permutation(shuffled.begin(), shuffled.end(), ids.begin()));
}

TEST(RealModelForward, ACancelledRunStops) {
  auto model = open_model("llama");
  ASSERT_TRUE(model);
  std::atomic<bool> cancel{true};
  ForwardOptions o;
  o.cancel = &cancel;
  auto r = run_forward(*model, {1, 2, 3}, o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "cancelled");
}

}  // namespace
}  // namespace poslab

namespace poslab {
namespace {

TEST(ModelWorkerTest, ANewerRequestReplacesAStaleOneAndTheResultArrivesOffThisThread) {
  auto model = open_model("llama");
  ASSERT_TRUE(model);
  ModelWorker worker;
  ModelRequest first;
  first.sentence = "The dog chased another dog";
  worker.request(model, first);
  ModelRequest second = first;
  second.intervention.positions_off = true;
  second.layer = 1;
  worker.request(model, second);  // the first run is cancelled, not queued
  worker.wait();
  auto run = worker.latest();
  ASSERT_TRUE(run);
  EXPECT_EQ(run->request, second);
  ASSERT_TRUE(run->changed);
  EXPECT_NE(run->changed->loss, run->unchanged.loss);
  EXPECT_TRUE(run->shown().layer(1));
  const std::uint64_t version = worker.version();
  worker.request(model, second);  // the same request again: nothing runs
  EXPECT_FALSE(worker.running());
  EXPECT_EQ(worker.version(), version);
  ModelRequest bad = first;
  bad.intervention.position_shift = -1;  // refused by the forward pass
  worker.request(model, bad);
  worker.wait();
  EXPECT_FALSE(worker.error().empty());
  EXPECT_EQ(worker.latest(), run);  // a failed run keeps the last good one
}

TEST(ModelRequestTest, TheStateChangesOnlyWhatDiffersFromTheConfig) {
  auto model = open_model("llama");
  ASSERT_TRUE(model);
  const TransformerConfig& c = model->config();
  State s;
  s.model.base = c.rope_theta;
  s.model.scaling = c.scaling;
  s.model.rope_style = RopeStyle::Half;
  s.view.layer = 1;
  EXPECT_FALSE(model_request(s, c).changes());
  s.model.base = 10000;
  s.model.rope_style = RopeStyle::Interleaved;
  s.view.permutation = 4;
  const ModelRequest r = model_request(s, c);
  EXPECT_EQ(r.intervention.rope_theta, 10000.0);
  EXPECT_EQ(r.intervention.pairing, RopeStyle::Interleaved);
  EXPECT_FALSE(r.intervention.scaling);
  EXPECT_EQ(r.shuffle_seed, 4u);
  EXPECT_EQ(r.layer, 1);
}

TEST(ModelRunTest, EachKindOfPositionsIsTurnedOffByItsOwnSwitch) {
  // As a trained model's config.json sets the state, nothing is off; the switch turns it off and on.
  struct Case {
    PositionKind kind;
    EncodingKind encoding;
    BiasKind bias;
  };
  for (const Case& c : {Case{PositionKind::Rope, EncodingKind::Rope, BiasKind::None},
                        Case{PositionKind::Learned, EncodingKind::Learned, BiasKind::None},
                        Case{PositionKind::Sinusoidal, EncodingKind::Sinusoidal, BiasKind::None},
                        Case{PositionKind::Alibi, EncodingKind::None, BiasKind::Alibi},
                        Case{PositionKind::T5, EncodingKind::None, BiasKind::T5}}) {
    ModelSettings m;
    m.encoding = c.encoding;
    m.bias = c.bias;
    EXPECT_FALSE(positions_off(m, c.kind)) << to_string(c.kind);
    set_positions_off(m, c.kind, true);
    EXPECT_TRUE(positions_off(m, c.kind)) << to_string(c.kind);
    set_positions_off(m, c.kind, false);
    EXPECT_FALSE(positions_off(m, c.kind)) << to_string(c.kind);
    EXPECT_EQ(m.encoding, c.encoding) << to_string(c.kind);
    EXPECT_EQ(m.bias, c.bias) << to_string(c.kind);
  }
  ModelSettings none;
  none.encoding = EncodingKind::None;
  EXPECT_FALSE(positions_off(none, PositionKind::None));  // NoPE has nothing to turn off
}

TEST(ModelRunTest, ALayerBecomesPipelineResultsForTheAttentionView) {
  auto model = open_model("gpt2");
  ASSERT_TRUE(model);
  ModelRequest request;
  request.sentence = "The dog chased another dog";
  request.layer = 1;
  auto run = run_model(*model, request);
  ASSERT_TRUE(run);
  const Results r = layer_results(run->shown(), 1, model->config(), "test");
  EXPECT_EQ(r.problem.heads, 4);
  EXPECT_EQ(r.problem.head_dim(), 12);
  EXPECT_EQ(r.tokens.size(), 5u);
  EXPECT_TRUE(r.problem.masked(0, 1));
  EXPECT_FALSE(r.problem.masked(1, 0));
  EXPECT_EQ(r.attention.weights.size(), 4u);
  EXPECT_NE(r.description.find("gpt2"), std::string::npos);
}

}  // namespace
}  // namespace poslab

// Encoders and encoder–decoders (BERT, ModernBERT, T5, Flan-T5) against an independent forward
// pass: tests/reference/make_encoder_reference.py (NumPy, from Hugging Face's modeling_bert,
// modeling_modernbert and modeling_t5; not from PosLab's code) writes the folders and, per case,
// every stack's attention weights, the logits, the top-5 ids and T5's loss.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/encodings/bias.hpp"
#include "core/model/forward.hpp"
#include "core/model/model_run.hpp"

namespace poslab {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

Json read_reference(const std::string& name) {
  std::ifstream in(fs::path(POSLAB_MODEL_REFERENCE) / (name + ".reference.json"));
  EXPECT_TRUE(in.good()) << name << ".reference.json is missing: ctest runs ModelReference.Encoders first";
  return in.good() ? Json::parse(in) : Json::object();
}

std::shared_ptr<const Checkpoint> open_model(const std::string& name) {
  auto model = Checkpoint::open(fs::path(POSLAB_MODEL_REFERENCE) / name);
  EXPECT_TRUE(model) << (model ? "" : model.error());
  return model ? *model : nullptr;
}

// The intervention each reference case names (make_encoder_reference.py's docstring).
PositionIntervention intervention_for(const std::string& c) {
  PositionIntervention v;
  if (c == "positions_off") v.positions_off = true;
  if (c == "window_none") v.window = 0;
  if (c == "window_8") v.window = 8;
  if (c == "local_base_1000") v.local_base = 1000.0;
  if (c == "rope_theta_10000") v.rope_theta = 10000.0;
  return v;
}

// The largest |A − E| over the kept layers' heads, the reference's first rows only (T5's decoder
// here reads one token more than the reference's: the </s> it predicts last).
double worst_weight(const std::vector<LayerAttention>& layers, const Json& expected) {
  double worst = 0.0;
  EXPECT_EQ(layers.size(), expected.size());
  for (std::size_t l = 0; l < layers.size() && l < expected.size(); ++l)
    for (std::size_t h = 0; h < layers[l].weights.size(); ++h) {
      const Matrix& A = layers[l].weights[h];
      const Json& E = expected[l][h];
      EXPECT_GE(static_cast<std::size_t>(A.rows()), E.size());
      EXPECT_GE(static_cast<std::size_t>(A.cols()), E[0].size());
      for (std::size_t i = 0; i < E.size() && i < static_cast<std::size_t>(A.rows()); ++i)
        for (std::size_t j = 0; j < E[i].size() && j < static_cast<std::size_t>(A.cols()); ++j)
          worst = std::max(worst, std::abs(A(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) - E[i][j].get<double>()));
    }
  return worst;
}

// max |a − b| / max |b| over the reference's rows.
double relative_error(const Matrix& a, const Json& b) {
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < b.size() && i < static_cast<std::size_t>(a.rows()); ++i)
    for (std::size_t j = 0; j < b[i].size(); ++j) {
      const double ref = b[i][j].get<double>();
      worst = std::max(worst, std::abs(a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) - ref));
      scale = std::max(scale, std::abs(ref));
    }
  return worst / scale;
}

class EncoderModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EncoderModel, EveryStackLogitsAndLossMatchTheReferenceInEveryCase) {
  auto model = open_model(GetParam());
  ASSERT_TRUE(model);
  const TransformerConfig& c = model->config();
  const Json ref = read_reference(GetParam());
  ASSERT_FALSE(ref["cases"].empty());
  for (const auto& [case_name, expected] : ref["cases"].items()) {
    SCOPED_TRACE(GetParam() + " / " + case_name);
    ForwardOptions o;
    o.intervention = intervention_for(case_name);
    o.all_layers = true;
    o.keep_logits = true;
    if (c.encoder_decoder()) {
      o.decoder_ids = {c.decoder_start};
      for (const Json& id : expected["labels"]) o.decoder_ids.push_back(id.get<int>());
    }
    const std::vector<int> ids = expected["ids"].get<std::vector<int>>();
    const std::vector<std::pair<ModelStack, const char*>> stacks =
        c.encoder_decoder() ? std::vector<std::pair<ModelStack, const char*>>{{ModelStack::Encoder, "attention"},
                                                                              {ModelStack::Decoder, "decoder_attention"},
                                                                              {ModelStack::Cross, "cross_attention"}}
                            : std::vector<std::pair<ModelStack, const char*>>{{ModelStack::Encoder, "attention"}};
    for (const auto& [stack, key] : stacks) {
      SCOPED_TRACE(key);
      o.stack = stack;
      auto r = run_forward(*model, ids, o);
      ASSERT_TRUE(r) << r.error();
      EXPECT_LE(worst_weight(r->layers, expected[key]), 1e-4);
      EXPECT_LE(relative_error(r->logits, expected["logits"]), 1e-4);
      if (c.masked_lm()) {
        EXPECT_TRUE(std::isnan(r->loss)) << "a masked LM has no loss";
        EXPECT_TRUE(r->masked_lm);
      } else {
        const double loss = expected["loss"].get<double>();
        EXPECT_LE(std::abs(r->loss - loss) / loss, 1e-4) << r->loss << " vs " << loss;
      }
      // top[i]: a masked LM's guess for position i, T5's next token after decoder position i.
      const Json& top5 = expected["top5"];
      ASSERT_GE(r->top.size(), top5.size());
      for (std::size_t i = 0; i < top5.size(); ++i)
        for (std::size_t k = 0; k < 5 && k < r->top[i].size(); ++k) EXPECT_EQ(r->top[i][k].id, top5[i][k].get<int>()) << "position " << i;
    }
  }
}

TEST_P(EncoderModel, TheTokenizerGivesTheReferenceIds) {
  auto model = open_model(GetParam());
  ASSERT_TRUE(model);
  const Json ref = read_reference(GetParam());
  for (const auto& [text, ids] : ref["texts"].items()) {
    auto got = model_tokens(*model, text);
    ASSERT_TRUE(got) << got.error();
    EXPECT_EQ(*got, ids.get<std::vector<int>>()) << text;
  }
}

INSTANTIATE_TEST_SUITE_P(Folders, EncoderModel, ::testing::Values("bert", "bert_saved", "modernbert", "t5", "flan_t5"));

// T5's buckets, each stack its own: the bucket of every (query, key) pair and the table the run
// reports for the views are the reference's.
TEST(EncoderModelT5, EachStackReadsItsOwnBucketsAndTable) {
  for (const char* name : {"t5", "flan_t5"}) {
    SCOPED_TRACE(name);
    auto model = open_model(name);
    ASSERT_TRUE(model);
    const TransformerConfig& c = model->config();
    const Json ref = read_reference(name);
    const Json& base = ref["cases"]["base"];
    for (const char* stack : {"encoder", "decoder"}) {
      const bool bidirectional = std::string(stack) == "encoder";
      const Json& buckets = base["buckets"][stack];
      for (std::size_t i = 0; i < buckets.size(); ++i)
        for (std::size_t j = 0; j < buckets[i].size(); ++j)
          EXPECT_EQ(t5_bucket(static_cast<int>(j) - static_cast<int>(i), bidirectional, c.t5_buckets, c.t5_max_distance), buckets[i][j].get<int>())
              << stack << " " << i << "," << j;
      ForwardOptions o;
      o.stack = bidirectional ? ModelStack::Encoder : ModelStack::Decoder;
      auto r = run_forward(*model, base["ids"].get<std::vector<int>>(), o);
      ASSERT_TRUE(r) << r.error();
      EXPECT_EQ(r->bidirectional, bidirectional);
      const Json& table = ref["relative_attention_bias"][stack];
      // Each stack's table, whichever stack the run shows.
      const Matrix& got = bidirectional ? r->bucket_bias : r->decoder_bucket_bias;
      ASSERT_EQ(got.rows(), static_cast<Eigen::Index>(table.size()));
      for (std::size_t b = 0; b < table.size(); ++b)
        for (std::size_t h = 0; h < table[b].size(); ++h)
          EXPECT_NEAR(got(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(h)), table[b][h].get<double>(), 1e-6);
    }
  }
}

// The figure of T5's three grids runs once and keeps layer l of each stack: the encoder's, the
// decoder's and the cross-attention's, each the reference's, each named by its stack; the
// cross-attention's sink is the mean weight of its first column.
TEST(EncoderModelT5, OneRunKeepsTheLayerOfEveryStack) {
  auto model = open_model("t5");
  ASSERT_TRUE(model);
  const TransformerConfig& c = model->config();
  const Json base = read_reference("t5")["cases"]["base"];
  ForwardOptions o;
  o.all_stacks = true;
  o.stack = ModelStack::Decoder;
  o.keep_layers = {1};
  o.decoder_ids = {c.decoder_start};
  for (const Json& id : base["labels"]) o.decoder_ids.push_back(id.get<int>());
  auto r = run_forward(*model, base["ids"].get<std::vector<int>>(), o);
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->layers.size(), 3u);
  const std::pair<ModelStack, const char*> stacks[] = {
      {ModelStack::Encoder, "attention"}, {ModelStack::Decoder, "decoder_attention"}, {ModelStack::Cross, "cross_attention"}};
  for (const auto& [stack, key] : stacks) {
    SCOPED_TRACE(key);
    const LayerAttention* a = r->layer(1, stack);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->stack, stack);
    EXPECT_EQ(a->cross, stack == ModelStack::Cross);
    EXPECT_LE(worst_weight({*a}, Json::array({base[key][1]})), 1e-4);
    ASSERT_EQ(a->heads.size(), static_cast<std::size_t>(c.heads));
  }
  EXPECT_EQ(r->layer(1), r->layer(1, ModelStack::Decoder)) << "the shown stack's layer is the one asked for";
  const LayerAttention* cross = r->layer(1, ModelStack::Cross);
  for (std::size_t h = 0; h < cross->weights.size(); ++h) {
    const Matrix& A = cross->weights[h];
    double first_column = 0.0;
    for (Eigen::Index i = 0; i < A.rows(); ++i) first_column += A(i, 0);
    EXPECT_NEAR(cross->heads[h].sink, first_column / static_cast<double>(A.rows()), 1e-6) << "head " << h;
  }
}

// The colour bar says what each model's scores are: T5's unscaled q·k with its buckets (none in
// the cross-attention, none with the positions off), Gemma 2's scalar and soft cap, BLOOM's
// ALiBi, Llama's plain q·k/√d_h.
TEST(EncoderModelT5, TheScoreFormulaIsEachModelsOwn) {
  const auto formula = [](const std::string& name, ModelStack stack, bool positions_off) {
    auto model = open_model(name);
    if (!model) return std::string("no model");
    ForwardOptions o;
    o.all_stacks = true;
    o.keep_layers = {0};
    o.intervention.positions_off = positions_off;
    auto ids = model_tokens(*model, "the dog chased the cat");
    if (!ids) return ids.error();
    auto r = run_forward(*model, *ids, o);
    if (!r) return r.error();
    const LayerAttention* a = r->layer(0, stack);
    return a ? score_formula(model->config(), *a) : std::string("no layer");
  };
  EXPECT_EQ(formula("t5", ModelStack::Encoder, false), "q·k + b(bucket)");
  EXPECT_EQ(formula("t5", ModelStack::Decoder, false), "q·k + b(bucket)");
  EXPECT_EQ(formula("t5", ModelStack::Cross, false), "q·k");
  EXPECT_EQ(formula("t5", ModelStack::Encoder, true), "q·k");
  EXPECT_EQ(formula("gemma2", ModelStack::Encoder, false), "50·tanh((q·k/√24) / 50)");
  EXPECT_EQ(formula("bloom", ModelStack::Encoder, false), "q·k/√d_h − m·(i − j)");
  EXPECT_EQ(formula("llama", ModelStack::Encoder, false), "q·k/√d_h");
}

// A one-stack model has no decoder or cross-attention to show; BertModel (no head) predicts nothing.
TEST(EncoderModelErrors, AStackAModelDoesNotHaveIsAnError) {
  auto model = open_model("bert");
  ASSERT_TRUE(model);
  ForwardOptions o;
  o.stack = ModelStack::Cross;
  auto r = run_forward(*model, {2, 5, 3}, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("one stack"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace poslab

// Encoders and encoder–decoders on the command line (issue 24's interface): fill-mask through
// predict, T5's target and its loss, each stack's attention exported, the interventions, and the
// options of another kind of model refused. The folders and their numbers come from the
// independent tests/reference/make_encoder_reference.py (core_encoder_forward_test checks the
// forward pass itself in every case).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "app_support.hpp"
#include "poslab_process.hpp"

using namespace poslab::app_test;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

std::string model(const std::string& name) { return (fs::path(POSLAB_MODEL_REFERENCE) / name).string(); }

Json reference(const std::string& name) {
  std::ifstream in(fs::path(POSLAB_MODEL_REFERENCE) / (name + ".reference.json"));
  EXPECT_TRUE(in.good()) << name;
  return in.good() ? Json::parse(in) : Json::object();
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

Json predict(const std::string& folder, const std::string& options) {
  const auto r = run("predict --backend cpu --model " + model(folder) + " " + options);
  EXPECT_EQ(r.exit_code, 0) << options << ": " << r.output;
  if (r.exit_code != 0) return Json::object();
  return Json::parse(r.output.substr(r.output.find('{')));
}

// The weight column of an attention CSV (head,query,key,query_token,key_token,score,weight) by
// (head, query, key), and how many rows it has.
struct AttentionCsv {
  std::map<std::tuple<int, int, int>, double> weight;
  int queries = 0, keys = 0;
};

AttentionCsv read_attention_csv(const fs::path& p) {
  AttentionCsv out;
  const CsvTable csv = poslab::test_support::read_csv_file(p);
  EXPECT_EQ(csv.header, poslab::csv_line_fields("head,query,key,query_token,key_token,score,weight"));
  for (const auto& f : csv.rows) {
    EXPECT_EQ(f.size(), 7u) << poslab::test_support::csv_row_text(f);  // tokens that hold commas are quoted
    if (f.size() != 7) continue;
    const int head = std::stoi(f[0]), query = std::stoi(f[1]), key = std::stoi(f[2]);
    out.weight[{head, query, key}] = std::stod(f[6]);
    out.queries = std::max(out.queries, query + 1);
    out.keys = std::max(out.keys, key + 1);
  }
  return out;
}

}  // namespace

TEST(CliEncoders, FillMaskPredictsEachPositionItselfAndHasNoLoss) {
  for (const char* folder : {"bert", "modernbert"}) {
    SCOPED_TRACE(folder);
    const Json ref = reference(folder);
    const Json& base = ref["cases"]["base"];
    const Json out = predict(folder, "--sentence " + quoted(base["text"].get<std::string>()) + " --top 5");
    ASSERT_TRUE(out.contains("top")) << out.dump();
    EXPECT_TRUE(out["loss"].is_null());
    EXPECT_TRUE(out["perplexity"].is_null());
    EXPECT_EQ(out["ids"], base["ids"]);
    ASSERT_EQ(out["top"].size(), base["ids"].size());
    ASSERT_FALSE(base["mask_positions"].empty());
    for (const Json& at : base["mask_positions"])
      for (std::size_t k = 0; k < 5; ++k)
        EXPECT_EQ(out["top"][at.get<std::size_t>()][k]["id"], base["top5"][at.get<std::size_t>()][k]) << "blank at " << at;
  }
}

TEST(CliEncoders, T5PredictsTheTargetAfterTheStartTokenWithItsLoss) {
  for (const char* folder : {"t5", "flan_t5"}) {
    SCOPED_TRACE(folder);
    const Json base = reference(folder)["cases"]["base"];
    const Json out = predict(folder, "--sentence " + quoted(base["text"].get<std::string>()) + " --target " +
                                         quoted(base["target"].get<std::string>()));
    ASSERT_TRUE(out.contains("decoder_ids")) << out.dump();
    std::vector<int> expected{0};
    for (const Json& id : base["labels"]) expected.push_back(id.get<int>());
    EXPECT_EQ(out["decoder_ids"].get<std::vector<int>>(), expected) << "the start token, the target's tokens and </s>";
    const double loss = base["loss"].get<double>();
    EXPECT_NEAR(out["loss"].get<double>(), loss, 1e-4 * loss);
    EXPECT_EQ(out["top"][0][0]["id"], base["top5"][0][0]) << "the decoder's first prediction";
  }
}

TEST(CliEncoders, EachStacksAttentionExportsAsItsRowsAndColumns) {
  const Json base = reference("t5")["cases"]["base"];
  const std::string common = "--backend cpu --model " + model("t5") + " --layer 1 --sentence " + quoted(base["text"].get<std::string>()) +
                             " --target " + quoted(base["target"].get<std::string>());
  const TempFolder tmp("app");
  const fs::path dir = tmp / "encoder-export";
  fs::create_directories(dir);
  const std::size_t t_enc = base["ids"].size(), t_dec = base["labels"].size() + 1;
  const struct {
    const char* stack;
    const char* key;
    std::size_t rows, cols;
  } stacks[] = {{"encoder", "attention", t_enc, t_enc}, {"decoder", "decoder_attention", t_dec, t_dec}, {"cross", "cross_attention", t_dec, t_enc}};
  for (const auto& s : stacks) {
    SCOPED_TRACE(s.stack);
    const fs::path csv = dir / (std::string(s.stack) + ".csv");
    const auto r = run("export attention " + common + " --stack " + s.stack + " --csv " + csv.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const AttentionCsv a = read_attention_csv(csv);
    EXPECT_EQ(a.queries, static_cast<int>(s.rows));
    EXPECT_EQ(a.keys, static_cast<int>(s.cols));
    const Json& E = base[s.key][1][0];  // layer 1, head 0
    for (std::size_t i = 0; i < E.size(); ++i)
      for (std::size_t j = 0; j < E[i].size(); ++j)
        EXPECT_NEAR((a.weight.at({0, static_cast<int>(i), static_cast<int>(j)})), E[i][j].get<double>(), 1e-4) << i << "," << j;
  }
  // The heads of the decoder with T5's learned distances below them, as a picture.
  const fs::path png = dir / "heads.png";
  const auto heads = run("export heads " + common + " --stack decoder --png " + png.string());
  ASSERT_EQ(heads.exit_code, 0) << heads.output;
  EXPECT_GT(read_png(png).height, 200);
}

// The heads of T5's cross-attention: one row per head with its sink (the mean weight on the
// sentence's first token, from the exported weights), the fields that need one text left empty;
// the figure holds the three stacks' grids and the lines between the texts, so it is taller than
// the grid of one stack alone would be.
TEST(CliEncoders, CrossAttentionHeadsHaveTheirSinkAndTheFigureShowsEveryStack) {
  const Json base = reference("t5")["cases"]["base"];
  const std::string common = "--backend cpu --model " + model("t5") + " --layer 1 --sentence " + quoted(base["text"].get<std::string>()) +
                             " --target " + quoted(base["target"].get<std::string>()) + " --stack cross";
  const TempFolder tmp("app");
  const fs::path dir = tmp / "encoder-heads";
  fs::create_directories(dir);
  const auto attention = run("export attention " + common + " --csv " + (dir / "attention.csv").string());
  ASSERT_EQ(attention.exit_code, 0) << attention.output;
  const AttentionCsv a = read_attention_csv(dir / "attention.csv");
  const auto heads = run("export heads " + common + " --csv " + (dir / "heads.csv").string() + " --png " + (dir / "heads.png").string());
  ASSERT_EQ(heads.exit_code, 0) << heads.output;
  const CsvTable csv = poslab::test_support::read_csv_file(dir / "heads.csv");
  EXPECT_EQ(csv.header, poslab::csv_line_fields("head,sink,mean_distance,previous_token,induction"));
  int rows = 0;
  for (const auto& f : csv.rows) {
    const std::string line = poslab::test_support::csv_row_text(f);
    // An encoder–decoder's heads have a sink and nothing else: the last three fields are empty.
    ASSERT_TRUE(f.size() == 5 && f[2].empty() && f[3].empty() && f[4].empty()) << line;
    const int head = std::stoi(f[0]);
    EXPECT_EQ(head, rows++);
    double sink = 0.0;
    for (int i = 0; i < a.queries; ++i) sink += a.weight.at({head, i, 0});
    EXPECT_NEAR(std::stod(f[1]), sink / a.queries, 1e-4) << line;
  }
  EXPECT_EQ(rows, static_cast<int>(reference("t5")["relative_attention_bias"]["encoder"][0].size())) << "one row per head";
  const int side = 120, grids = 3;  // kHeadThumbSide, a grid per stack
  EXPECT_GT(read_png(dir / "heads.png").height, grids * (side + 48)) << "the encoder's, the decoder's and the cross-attention's grids";
}

TEST(CliEncoders, EveryInterventionChangesTheRunOfTheModelItAppliesTo) {
  const auto probability = [](const std::string& folder, const std::string& options) {
    const Json base = reference(folder)["cases"]["base"];
    std::string args = "--sentence " + quoted(base["text"].get<std::string>()) + " " + options;
    if (base.contains("target")) args += " --target " + quoted(base["target"].get<std::string>());
    const Json out = predict(folder, args);
    const std::size_t at = base.contains("mask_positions") ? base["mask_positions"][0].get<std::size_t>() : 0;
    return out.contains("top") ? out["top"][at][0]["p"].get<double>() : 0.0;
  };
  const struct {
    const char* folder;
    const char* options;
  } cases[] = {{"bert", "--no-positions"},          {"bert", "--position-shift 3"},       {"modernbert", "--no-positions"},
               {"modernbert", "--window none"},    {"modernbert", "--window 2"},          {"modernbert", "--local-base 1000"},
               {"modernbert", "--base 10000"},     {"t5", "--no-positions"},             {"flan_t5", "--no-positions"}};
  for (const auto& c : cases) {
    const double unchanged = probability(c.folder, ""), changed = probability(c.folder, c.options);
    EXPECT_GT(std::abs(changed - unchanged), 1e-7) << c.folder << " " << c.options;
  }
}

TEST(CliEncoders, OptionsOfAnotherKindOfModelAreRefused) {
  const struct {
    const char* folder;
    const char* options;
    const char* says;
  } cases[] = {
      {"bert", "--stack cross", "encoder–decoder"},
      {"llama", "--target 'the cat'", "encoder–decoder"},
      {"bert", "--window 4", "no layer of this model has one"},
      {"t5", "--stack decoder --layer 9 --target 'x'", "--layer 9 is out of range"},
  };
  for (const auto& c : cases) {
    const auto r = run("predict --backend cpu --model " + model(c.folder) + " --sentence 'the' " + c.options);
    EXPECT_EQ(r.exit_code, 2) << c.folder << " " << c.options << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
  }
}

// `poslab papers` and `poslab export paper` as a user runs them: exit codes, the JSON's keys, an
// unknown id, the figure's files.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "app_support.hpp"
#include "poslab_process.hpp"

using namespace poslab;
using namespace poslab::app_test;
namespace fs = std::filesystem;

TEST(CliPapers, ListsEveryCheckWithItsPaper) {
  const auto r = run("papers");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* id : {"roformer-decay", "alibi-slopes", "yarn", "critical-dimension", "base-bound"})
    EXPECT_NE(r.output.find(id), std::string::npos) << id;
  EXPECT_NE(r.output.find("Press et al. 2022"), std::string::npos) << r.output;
  const auto help = run("export paper --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("poslab export paper --id ID"), std::string::npos) << help.output;
  EXPECT_EQ(help.output.find("--embeddings"), std::string::npos) << "export paper takes no state options";
}

TEST(CliPapers, ReproducedChecksExitZeroAndWriteTheJson) {
  const TempFolder dir("app");
  const auto r = run("papers check alibi-slopes critical-dimension --json " + (dir / "p.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto json = nlohmann::json::parse(read_file(dir / "p.json"));
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), 5u);
  const std::set<std::string> keys = {"id", "paper", "where", "quantity", "published", "measured", "tolerance", "pass"};
  for (const auto& o : json) {
    std::set<std::string> got;
    for (const auto& [k, v] : o.items()) got.insert(k);
    EXPECT_EQ(got, keys);
    EXPECT_EQ(o["pass"], true);
  }
}

TEST(CliPapers, AChecksThatDiffersExitsOneAndSaysByHowMuch) {
  const auto r = run("papers check yarn");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("yarn: differs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("largest difference"), std::string::npos) << r.output;
}

TEST(CliPapers, AnUnknownIdIsAUsageErrorNamingTheValidOnes) {
  const TempFolder dir("app");
  auto r = run("papers check no-such-check --json " + (dir / "unknown.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("base-bound"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "unknown.json"));
  r = run("export paper --id nope --png " + (dir / "unknown.png").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("roformer-decay"), std::string::npos) << r.output;
  r = run("export paper --png " + (dir / "unknown.png").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(fs::exists(dir / "unknown.png"));
}

TEST(CliPapers, ExportPaperWritesTheFigureAndItsData) {
  const TempFolder dir("app");
  const auto r = run("export paper --id alibi-slopes --png " + (dir / "a.png").string() + " --csv " + (dir / "a.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto img = read_png(dir / "a.png");
  EXPECT_GT(img.width, 400);
  EXPECT_GT(img.height, 200);
  const std::string csv = read_file(dir / "a.csv");
  EXPECT_EQ(csv.rfind("panel,curve,kind,x,y\n", 0), 0u);
  EXPECT_NE(csv.find(",published,12,0.088388347648318"), std::string::npos) << csv.substr(0, 400);
}

TEST(CliPapers, TrainedModelChecksRunOnTheShippedModels) {
  const TempFolder dir("app");
  const auto r = run("papers check alibi-extrapolation survey-table nope-position-probe --json " + (dir / "t.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("alibi-extrapolation: reproduced"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PosLab reads \"flat\""), std::string::npos) << "a claim's reading is said beside it";
  const auto json = nlohmann::json::parse(read_file(dir / "t.json"));
  EXPECT_EQ(json.size(), 6u);
  const auto figure = run("export paper --id nope-position-probe --csv " + (dir / "p.csv").string());
  ASSERT_EQ(figure.exit_code, 0) << figure.output;
  EXPECT_NE(read_file(dir / "p.csv").find("causal mask removed"), std::string::npos);
}

TEST(CliPapers, ModelChecksNeedAModelAndReadTheOneGiven) {
  const TempFolder dir("app");
  auto r = run("papers check sinks");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("sinks: skipped (needs --model DIR)"), std::string::npos) << r.output;
  r = run("export paper --id sinks --png " + (dir / "s.png").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("needs --model DIR"), std::string::npos) << r.output;
  const std::string model = std::string(POSLAB_MODEL_REFERENCE) + "/gemma2";
  r = run("papers check sinks massive-activations --model " + model + " --json " + (dir / "m.json").string());
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;  // random weights: a verdict either way
  EXPECT_EQ(nlohmann::json::parse(read_file(dir / "m.json")).size(), 5u);
  // A check that cannot be made on the model is said, and the exit is not a pass.
  r = run("papers check frequency-usage --model " + (fs::path(POSLAB_SOURCE_ASSETS) / "trained" / "copy-alibi").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("frequency-usage: could not be made: frequency-usage needs a RoPE model"), std::string::npos) << r.output;
}

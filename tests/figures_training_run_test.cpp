// The runs over a repository's revisions (export training; figures/training_run): what they would
// download, said before anything is fetched, against the fake Hub on 127.0.0.1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "figures/training_run.hpp"
#include "hub/hub_client.hpp"
#include "hub_support.hpp"
#include "temp_folder.hpp"

namespace poslab::hub {
namespace {

namespace fs = std::filesystem;
using test_support::FakeHub;

fs::path model_folder(const fs::path& dir, unsigned seed) {
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << "{}";
  std::ofstream(dir / "tokenizer.json") << "{\"model\": {\"type\": \"BPE\"}}";
  std::mt19937 g(seed);
  std::string bytes(70000, '\0');
  for (auto& c : bytes) c = static_cast<char>(g() & 0xff);
  std::ofstream(dir / "model.safetensors", std::ios::binary) << bytes;
  return dir;
}

// Two revisions that are one commit download its files once: the size said counts them once.
TEST(TrainingRun, RevisionsThatAreOneCommitAreCountedOnce) {
  const test_support::TempFolder dir("training-run");
  FakeHub fake(dir / "hub", {});
  fake.publish("org/pythia", model_folder(dir / "v1", 9), "--tag step1 --tag step2");
  HubSettings settings;
  settings.endpoint = fake.endpoint();
  settings.cache = HubCache(dir / "cache");
  TrainingRequest request{*parse_model_name("org/pythia"), {"step1", "step2"}, 0, "a b"};
  auto plans = plan_revisions(request, settings);
  ASSERT_TRUE(plans) << plans.error();
  std::uint64_t one = 0;
  for (const auto& f : (*plans)[0].files) one += f.size;
  EXPECT_EQ(bytes_to_download(*plans), one);
}

}  // namespace
}  // namespace poslab::hub

namespace poslab::hub {
namespace {

// Pythia's revisions are "stepN"; OLMo 2's "stageS-stepN-tokensTB", whose steps restart with each
// stage: the step is read from either, and the x axis is the step only within one stage.
TEST(TrainingRun, StepsAreReadFromPythiasAndOlmosRevisionNames) {
  EXPECT_EQ(training_step("step1000"), 1000);
  EXPECT_EQ(training_step("stage1-step140000-tokens588B"), 140000);
  EXPECT_EQ(training_step("stage2-ingredient1-step11931-tokens100B"), 11931);
  EXPECT_EQ(training_stage("stage1-step140000-tokens588B"), "stage1-");
  EXPECT_EQ(training_stage("step1000"), "");
  for (const char* none : {"main", "step", "stepx", "step12a", "tokens5B", "laststep10", "step-10"})
    EXPECT_FALSE(training_step(none).has_value()) << none;
  const auto rows = [](std::vector<std::string> names) {
    std::vector<RevisionStats> out;
    for (auto& n : names) out.push_back({n, training_step(n), "", 0.0, {}});
    return out;
  };
  EXPECT_TRUE(steps_known(rows({"stage1-step1000-tokens4B", "stage1-step2000-tokens8B"})));
  EXPECT_FALSE(steps_known(rows({"stage1-step1000-tokens4B", "stage2-ingredient1-step1000-tokens4B"})));
  EXPECT_FALSE(steps_known(rows({"step1000", "main"})));
}

}  // namespace
}  // namespace poslab::hub

#include <set>

#include "figures/training.hpp"

namespace poslab::hub {
namespace {

// The Model tab's figure keeps its text at its own size in any panel: in a room narrower than
// its three columns its panels wrap into more rows (seam 7: shrunk to fit, its labels were about
// 7 pixels high), and `export training` still draws three columns.
TEST(TrainingRun, TheWindowsFigureWrapsItsPanelsRatherThanShrinkingItsText) {
  std::vector<RevisionStats> rows;
  for (long long step : {0LL, 1000LL, 143000LL}) {
    RevisionStats r;
    r.revision = "step" + std::to_string(step);
    r.step = step;
    r.loss = 3.0 - static_cast<double>(step) / 1e5;
    r.heads.resize(4);
    for (std::size_t h = 0; h < r.heads.size(); ++h) r.heads[h] = {0.1 * static_cast<double>(h), 2.0, 0.3, 0.05};
    rows.push_back(r);
  }
  const auto sizes = [](const plot::Figure& f) {
    std::set<float> out;
    for (const plot::TextItem& t : f.texts) out.insert(t.size);
    return out;
  };
  const plot::Figure exported = training_figure(rows, 0, "org/pythia", kTrainingPanel);
  EXPECT_EQ(exported.panels.size(), 5u);
  for (float room : {exported.width + 10.0f, exported.width * 0.7f, exported.width * 0.45f, 420.0f}) {
    const plot::Figure fitted = training_figure_to_fit(rows, 0, "org/pythia", room);
    EXPECT_LE(fitted.width, room) << "in a room " << room << " points wide";
    EXPECT_EQ(sizes(fitted), sizes(exported)) << "in a room " << room << " points wide";
    EXPECT_EQ(fitted.panels.size(), 5u);
  }
  EXPECT_EQ(training_figure_to_fit(rows, 0, "org/pythia", exported.width + 10.0f).height, exported.height);
  EXPECT_GT(training_figure_to_fit(rows, 0, "org/pythia", 420.0f).height, 2.0f * exported.height);
}

}  // namespace
}  // namespace poslab::hub

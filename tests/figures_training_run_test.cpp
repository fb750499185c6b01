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

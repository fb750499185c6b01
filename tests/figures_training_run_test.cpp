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
  const fs::path dir = fs::temp_directory_path() / ("poslab_training_run_" + std::to_string(::getpid()));
  fs::remove_all(dir);
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
  fs::remove_all(dir);
}

}  // namespace
}  // namespace poslab::hub

// Models named on the Hub, as a user runs poslab: `predict --model ORG/NAME` from an empty cache
// against the small Hub of tests/hub/fake_hub.py (HF_ENDPOINT), the same again offline, the
// messages of a missing or gated model, and `export training` over several revisions.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app_support.hpp"
#include "hub_support.hpp"

namespace poslab::app_test {
namespace {

using test_support::FakeHub;

// The environment a user of the Hub has: the endpoint, an empty cache of their own, no token.
std::string hub_env(const FakeHub& hub, const fs::path& cache, const std::string& more = "") {
  return "env -u HF_TOKEN -u HF_HOME HF_ENDPOINT=" + hub.endpoint() + " HF_HUB_CACHE='" + cache.string() + "' " + more;
}

std::string json_part(const std::string& output) { return output.substr(std::min(output.find('{'), output.size())); }

TEST(AppHub, PredictByNameFromAnEmptyCacheMatchesTheFolder) {
  const TempFolder dir("hub-predict");
  FakeHub hub(dir / "hub");
  ASSERT_TRUE(hub.running());
  const fs::path folder = fs::path(POSLAB_MODEL_REFERENCE) / "llama";
  const std::string commit = hub.publish("tiny-org/tiny-llama", folder);
  const std::string args = " --sentence 'The dog chased another dog' --top 3 --backend cpu";
  const auto by_name = run("predict --model tiny-org/tiny-llama" + args, hub_env(hub, dir / "cache"));
  ASSERT_EQ(by_name.exit_code, 0) << by_name.output;
  const auto by_folder = run("predict --model " + folder.string() + args);
  ASSERT_EQ(by_folder.exit_code, 0) << by_folder.output;
  EXPECT_EQ(nlohmann::json::parse(json_part(by_name.output)), nlohmann::json::parse(json_part(by_folder.output)));
  // Not a terminal: plain lines on stderr, what and how much first.
  EXPECT_NE(by_name.output.find("poslab: downloading tiny-org/tiny-llama@main (commit " + commit.substr(0, 12)), std::string::npos)
      << by_name.output;
  EXPECT_NE(by_name.output.find("poslab: downloaded 3/3 files"), std::string::npos) << by_name.output;
  EXPECT_EQ(by_name.output.find('\r'), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(dir / "cache" / "models--tiny-org--tiny-llama" / "snapshots" / commit / "model.safetensors"));

  // Offline, from the cache: the same answer and not one request.
  const std::size_t requests = hub.request_count();
  const auto offline = run("predict --model tiny-org/tiny-llama@main" + args, hub_env(hub, dir / "cache", "HF_HUB_OFFLINE=1"));
  ASSERT_EQ(offline.exit_code, 0) << offline.output;
  EXPECT_EQ(nlohmann::json::parse(json_part(offline.output)), nlohmann::json::parse(json_part(by_folder.output)));
  EXPECT_EQ(hub.request_count(), requests);
  EXPECT_EQ(offline.output.find("downloading"), std::string::npos);
}

// On a terminal (a pseudo-terminal from script(1)) the progress is a bar redrawn in place.
TEST(AppHub, OnATerminalTheProgressIsABar) {
  const TempFolder dir("hub-terminal");
  FakeHub hub(dir / "hub");
  hub.publish("tiny-org/tiny-llama", fs::path(POSLAB_MODEL_REFERENCE) / "llama");
  const std::string command = hub_env(hub, dir / "cache") + " " + POSLAB_BINARY +
                              " predict --model tiny-org/tiny-llama --sentence hi --backend cpu";
  const auto r = test_support::run_shell("script -qec \"" + command + "\" /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\r  ["), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("100%"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("poslab: downloaded 3/3"), std::string::npos) << "lines are for logs, the bar for terminals";
}

TEST(AppHub, MissingGatedAndOfflineModelsSayWhy) {
  const TempFolder dir("hub-errors");
  FakeHub hub(dir / "hub", {"--token", "hf_app_secret"});
  hub.publish("meta-llama/gated", fs::path(POSLAB_MODEL_REFERENCE) / "llama", "--gated");
  const auto gated = run("predict --model meta-llama/gated --sentence hi", hub_env(hub, dir / "cache"));
  EXPECT_EQ(gated.exit_code, 1) << gated.output;
  EXPECT_NE(gated.output.find("gated"), std::string::npos) << gated.output;
  EXPECT_NE(gated.output.find(hub.endpoint() + "/meta-llama/gated"), std::string::npos) << gated.output;
  // The token from the file under $HF_HOME, as huggingface_hub reads it; never printed.
  fs::create_directories(dir / "home");
  std::ofstream(dir / "home" / "token") << "hf_app_secret\n";
  const auto granted = run("predict --model meta-llama/gated --sentence hi --backend cpu",
                           "HF_HOME='" + (dir / "home").string() + "' env -u HF_TOKEN HF_ENDPOINT=" + hub.endpoint() +
                               " HF_HUB_CACHE='" + (dir / "cache").string() + "'");
  EXPECT_EQ(granted.exit_code, 0) << granted.output;
  EXPECT_EQ(granted.output.find("hf_app_secret"), std::string::npos);
  const auto missing = run("predict --model nobody/nothing --sentence hi", hub_env(hub, dir / "cache"));
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("no such model"), std::string::npos) << missing.output;
  EXPECT_NE(missing.output.find("no folder named nobody/nothing"), std::string::npos) << missing.output;
  const auto offline = run("predict --model nobody/nothing --sentence hi", hub_env(hub, dir / "cache", "HF_HUB_OFFLINE=1"));
  EXPECT_NE(offline.exit_code, 0);
  EXPECT_NE(offline.output.find("offline (HF_HUB_OFFLINE=1)"), std::string::npos) << offline.output;
  const auto escape = run("predict --model 'org/x@../../etc' --sentence hi", hub_env(hub, dir / "cache"));
  EXPECT_EQ(escape.exit_code, 1) << escape.output;
  EXPECT_NE(escape.output.find("not a branch, tag or commit name"), std::string::npos) << escape.output;
  EXPECT_FALSE(fs::exists(dir / "cache" / "models--org--x"));
}

// Three checkpoints of one training run (the same seed, more steps each), published as revisions
// step1, step60 and step300 of one repository, as Pythia publishes its checkpoints.
std::vector<std::string> publish_training(const FakeHub& hub, const fs::path& dir) {
  std::vector<std::string> revisions;
  for (int steps : {1, 60, 300}) {
    const fs::path out = dir / ("steps" + std::to_string(steps));
    const auto trained = run("train --task copy --encoding rope --layers 2 --width 32 --heads 2 --train-length 24 --batch 16 --steps " +
                             std::to_string(steps) + " --seed 3 --out '" + out.string() + "'");
    EXPECT_EQ(trained.exit_code, 0) << trained.output;
    revisions.push_back("step" + std::to_string(steps));
    hub.publish("poslab/tiny-copy", out, "--tag " + revisions.back());
  }
  return revisions;
}

// OLMo 2's training checkpoints are branches named stageS-stepN-tokensTB: by name, as Pythia's,
// with the step read from the name (two checkpoints: the reference folder, and one whose base
// differs, so that their heads differ).
TEST(AppHub, ExportTrainingReadsOlmoRevisionNames) {
  const TempFolder dir("hub-olmo-training");
  FakeHub hub(dir / "hub");
  const fs::path first = fs::path(POSLAB_MODEL_REFERENCE) / "olmo2", second = dir / "later";
  fs::copy(first, second, fs::copy_options::recursive);
  auto config = nlohmann::json::parse(read_file(second / "config.json"));
  config["rope_theta"] = 50.0;
  std::ofstream(second / "config.json") << config.dump(2);
  hub.publish("allenai/tiny-olmo", first, "--tag stage1-step1000-tokens4B");
  hub.publish("allenai/tiny-olmo", second, "--tag stage1-step2000-tokens8B");
  const auto r = run("export training --model allenai/tiny-olmo --revisions stage1-step1000-tokens4B,stage1-step2000-tokens8B --layer 1"
                     " --sentence 'the dog sat on the mat' --csv '" + (dir / "t.csv").string() + "'",
                     hub_env(hub, dir / "cache"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rows = test_support::csv_records(read_file(dir / "t.csv"));
  ASSERT_EQ(rows.size(), 1u + 2u * 4u);  // header, 2 revisions × 4 heads
  for (std::size_t k = 1; k < rows.size(); ++k) EXPECT_EQ(rows[k][1], k <= 4 ? "1000" : "2000") << rows[k][0];
  EXPECT_NE(rows[1][4], rows[5][4]) << "the two checkpoints' head 0 should differ";
}

TEST(AppHub, ExportTrainingFollowsEachHeadAcrossRevisions) {
  const TempFolder dir("hub-training");
  FakeHub hub(dir / "hub");
  const auto revisions = publish_training(hub, dir);
  const std::string sentence = "abcdefghij|abcdefghij";
  const auto r = run("export training --model poslab/tiny-copy --revisions step1,step60,step300 --layer 1 --sentence '" + sentence +
                         "' --csv '" + (dir / "t.csv").string() + "' --png '" + (dir / "t.png").string() + "'",
                     hub_env(hub, dir / "cache"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rows = test_support::csv_records(read_file(dir / "t.csv"));
  ASSERT_EQ(rows.size(), 1u + 3u * 2u);  // header, 3 revisions × 2 heads
  EXPECT_EQ(rows[0], (std::vector<std::string>{"revision", "step", "layer", "head", "previous", "induction", "sink", "distance", "loss"}));
  for (std::size_t k = 1; k < rows.size(); ++k) {
    ASSERT_EQ(rows[k].size(), 9u);
    const std::size_t revision = (k - 1) / 2;
    EXPECT_EQ(rows[k][0], revisions[revision]);
    EXPECT_EQ(rows[k][1], revisions[revision].substr(4));
    EXPECT_EQ(rows[k][2], "1");
    EXPECT_EQ(rows[k][3], std::to_string((k - 1) % 2));
    for (int c = 4; c < 9; ++c) EXPECT_TRUE(std::isfinite(std::stod(rows[k][static_cast<std::size_t>(c)]))) << rows[k][c];
  }
  // Each revision's numbers are what that checkpoint gives on its own: `export heads` (columns
  // head,sink,mean_distance,previous_token,induction) and `predict`'s loss, run on its folder.
  for (std::size_t revision = 0; revision < 3; ++revision) {
    const fs::path folder = dir / ("steps" + revisions[revision].substr(4));
    const auto heads = run("export heads --model '" + folder.string() + "' --layer 1 --sentence '" + sentence + "' --csv '" +
                           (dir / "h.csv").string() + "' --backend cpu");
    ASSERT_EQ(heads.exit_code, 0) << heads.output;
    const auto own = test_support::csv_records(read_file(dir / "h.csv"));
    ASSERT_EQ(own.size(), 3u);
    const auto predicted = run("predict --model '" + folder.string() + "' --sentence '" + sentence + "' --backend cpu");
    ASSERT_EQ(predicted.exit_code, 0) << predicted.output;
    const double loss = nlohmann::json::parse(json_part(predicted.output))["loss"].get<double>();
    for (std::size_t h = 0; h < 2; ++h) {
      const auto& row = rows[1 + 2 * revision + h];
      const auto near = [](const std::string& a, const std::string& b) { return std::abs(std::stod(a) - std::stod(b)) <= 1e-5 * (1 + std::abs(std::stod(b))); };
      EXPECT_TRUE(near(row[4], own[1 + h][3])) << "previous " << row[4] << " vs " << own[1 + h][3];
      EXPECT_TRUE(near(row[5], own[1 + h][4])) << "induction " << row[5] << " vs " << own[1 + h][4];
      EXPECT_TRUE(near(row[6], own[1 + h][1])) << "sink " << row[6] << " vs " << own[1 + h][1];
      EXPECT_TRUE(near(row[7], own[1 + h][2])) << "distance " << row[7] << " vs " << own[1 + h][2];
      EXPECT_NEAR(std::stod(row[8]), loss, 1e-6 * (1 + loss));
    }
  }
  const auto png = read_png(dir / "t.png");
  EXPECT_GT(png.width, 800);
  EXPECT_GT(distinct_colors(png), 4u);
  // Again: everything is cached now — three metadata requests, nothing downloaded.
  const std::size_t before = hub.request_count();
  const auto again = run("export training --model poslab/tiny-copy --revisions step1,step60,step300 --layer 1 --sentence '" + sentence +
                             "' --csv '" + (dir / "t2.csv").string() + "'",
                         hub_env(hub, dir / "cache"));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(hub.request_count() - before, 3u);
  EXPECT_EQ(read_file(dir / "t2.csv"), read_file(dir / "t.csv"));
  EXPECT_NE(again.output.find("to download: 0 B"), std::string::npos) << again.output;
}

// eval takes --model ORG/NAME too (everywhere --model DIR works): a trained model on the Hub.
TEST(AppHub, EvalOpensATrainedModelByName) {
  const TempFolder dir("hub-eval");
  FakeHub hub(dir / "hub");
  const fs::path rope = fs::path(POSLAB_BINARY).parent_path() / "assets" / "trained" / "copy-rope";
  hub.publish("poslab/copy-rope", rope);
  const auto by_name = run("eval --model poslab/copy-rope --lengths 32 --sequences 4", hub_env(hub, dir / "cache"));
  ASSERT_EQ(by_name.exit_code, 0) << by_name.output;
  const auto by_folder = run("eval --model '" + rope.string() + "' --lengths 32 --sequences 4");
  ASSERT_EQ(by_folder.exit_code, 0) << by_folder.output;
  const auto table = [](const std::string& out) { return out.substr(out.find("length")); };
  EXPECT_EQ(table(by_name.output), table(by_folder.output));
}

TEST(AppHub, ExportTrainingRefusesBadArgumentsBeforeAnyRequest) {
  const auto nothing = run("export training --model a/b --revisions step1 --layer 0");
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.output.find("nothing to write"), std::string::npos) << nothing.output;
  const auto twice = run("export training --model a/b --revisions step1,step1 --layer 0 --csv /tmp/x.csv");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.output.find("twice"), std::string::npos) << twice.output;
  const auto at = run("export training --model a/b@main --revisions step1 --layer 0 --csv /tmp/x.csv");
  EXPECT_EQ(at.exit_code, 2);
  const auto no_layer = run("export training --model a/b --revisions step1 --csv /tmp/x.csv");
  EXPECT_EQ(no_layer.exit_code, 2);
  EXPECT_NE(no_layer.output.find("--layer"), std::string::npos) << no_layer.output;
}

// Issue 36: an export that cannot write its files downloads nothing; a token with a line break
// is refused before any request; a wait is said on stderr; a session saved from a model by name
// reopens it by name, from any folder; `export training --layer` past the model is a usage error.
TEST(AppHub, AnUnwritableExportDownloadsNothing) {
  const TempFolder dir("hub-unwritable");
  FakeHub hub(dir / "hub");
  hub.publish("tiny-org/tiny-llama", fs::path(POSLAB_MODEL_REFERENCE) / "llama");
  const auto r = run("export attention --model tiny-org/tiny-llama --layer 0 --csv '" + (dir / "missing" / "x.csv").string() + "'",
                     hub_env(hub, dir / "cache"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("x.csv"), std::string::npos) << r.output;
  EXPECT_EQ(hub.request_count(), 0u) << read_file(hub.log_path());
  EXPECT_FALSE(fs::exists(dir / "cache" / "models--tiny-org--tiny-llama"));
}

TEST(AppHub, ATokenWithALineBreakIsRefused) {
  const TempFolder dir("hub-crlf");
  FakeHub hub(dir / "hub");
  hub.publish("tiny-org/tiny-llama", fs::path(POSLAB_MODEL_REFERENCE) / "llama");
  const auto r = run("predict --model tiny-org/tiny-llama --sentence hi", hub_env(hub, dir / "cache", "HF_TOKEN=\"$(printf 'hf_x\\r\\nX-Evil: 1')\""));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("$HF_TOKEN holds a line break"), std::string::npos) << r.output;
  EXPECT_EQ(hub.request_count(), 0u);
}

TEST(AppHub, ARetryAfterIsSaidOnStderr) {
  const TempFolder dir("hub-retry");
  FakeHub hub(dir / "hub", {"--unavailable", "1", "--retry-after", "1"});
  hub.publish("tiny-org/tiny-llama", fs::path(POSLAB_MODEL_REFERENCE) / "llama");
  const auto r = run("predict --model tiny-org/tiny-llama --sentence hi --backend cpu", hub_env(hub, dir / "cache"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("poslab: waiting: " + hub.endpoint() + " answered HTTP 503"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("asking again in 1 s"), std::string::npos) << r.output;
}

TEST(AppHub, ASessionOfAModelByNameReopensByNameFromAnotherFolder) {
  const TempFolder dir("hub-session");
  FakeHub hub(dir / "hub");
  const std::string commit = hub.publish("tiny-org/tiny-llama", fs::path(POSLAB_MODEL_REFERENCE) / "llama");
  const auto saved = run("export attention --model tiny-org/tiny-llama --layer 0 --backend cpu --csv '" + (dir / "a.csv").string() +
                             "' --save-session '" + (dir / "s.json").string() + "'",
                         hub_env(hub, dir / "cache"));
  ASSERT_EQ(saved.exit_code, 0) << saved.output;
  const auto session = nlohmann::json::parse(read_file(dir / "s.json"));
  EXPECT_EQ(session["state"]["model"], "tiny-org/tiny-llama@" + commit) << session.dump(2);
  EXPECT_FALSE(session["state"].contains("embeddings")) << session.dump(2);
  // Another cache (another machine): the name downloads it again; the same figure's numbers.
  fs::remove_all(dir / "cache");
  fs::create_directories(dir / "elsewhere");
  const auto reopened = test_support::run_shell("cd '" + (dir / "elsewhere").string() + "' && " + hub_env(hub, dir / "cache2") + " " +
                                                POSLAB_BINARY + " export attention --session ../s.json --csv b.csv 2>&1");
  ASSERT_EQ(reopened.exit_code, 0) << reopened.output;
  EXPECT_EQ(read_file(dir / "elsewhere" / "b.csv"), read_file(dir / "a.csv"));
}

TEST(AppHub, ExportTrainingALayerPastTheModelIsAUsageError) {
  const TempFolder dir("hub-training-layer");
  FakeHub hub(dir / "hub");
  hub.publish("tiny-org/tiny-llama", fs::path(POSLAB_MODEL_REFERENCE) / "llama", "--tag step1");
  const auto r = run("export training --model tiny-org/tiny-llama --revisions step1 --layer 99 --csv '" + (dir / "t.csv").string() + "'",
                     hub_env(hub, dir / "cache"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--layer 99 is out of range"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace poslab::app_test

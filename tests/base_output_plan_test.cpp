// OutputPlan: the names checked, the temporary files made up front, and all files or none.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "base/output_plan.hpp"
#include "temp_folder.hpp"

namespace poslab {
namespace {

namespace fs = std::filesystem;
using test_support::TempFolder;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

std::set<std::string> names(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

TEST(OutputPlan, TwoNamesForOneFileOrAnInputAreTheUsersMistake) {
  const TempFolder dir("plan-names");
  OutputPlan plan;
  plan.add("--png", dir / "a.png");
  plan.add("--svg", dir / "sub" / ".." / "a.png");
  const auto problem = plan.prepare();
  EXPECT_EQ(problem.exit_code, 2);
  EXPECT_NE(problem.message.find("are one file"), std::string::npos) << problem.message;

  OutputPlan input;
  write(dir / "emb.txt", "x");
  input.add("--csv", dir / "emb.txt");
  input.add_input("--embeddings", dir / "." / "emb.txt");
  EXPECT_EQ(input.prepare().exit_code, 2);
  EXPECT_EQ(names(dir), (std::set<std::string>{"emb.txt"}));
}

TEST(OutputPlan, UnwritableTargetsFailBeforeAnythingIsWrittenAndLeaveNothing) {
  const TempFolder dir("plan-reserve");
  fs::create_directory(dir / "folder");
  for (const fs::path& bad : {dir / "folder", dir / "missing" / "x.csv", fs::path("/proc/x.csv")}) {
    OutputPlan plan;
    plan.add("--csv", dir / "fine.csv");
    plan.add("--png", bad);
    EXPECT_EQ(plan.prepare().exit_code, 1) << bad;
  }
  EXPECT_EQ(names(dir), (std::set<std::string>{"folder"}));
}

TEST(OutputPlan, CommitMovesEveryFileAndADroppedPlanLeavesNone) {
  const TempFolder dir("plan-commit");
  write(dir / "a.csv", "old");
  {
    OutputPlan plan;
    plan.add("--csv", dir / "a.csv");
    plan.add("--svg", dir / "b.svg");
    ASSERT_EQ(plan.prepare().exit_code, 0);
    ASSERT_TRUE(plan.write(dir / "a.csv", "new a").ok());
    // Dropped before commit(): as a command that fails after writing.
  }
  EXPECT_EQ(names(dir), (std::set<std::string>{"a.csv"}));
  EXPECT_EQ(read(dir / "a.csv"), "old");

  OutputPlan plan;
  plan.add("--csv", dir / "a.csv");
  plan.add("--svg", dir / "b.svg");
  ASSERT_EQ(plan.prepare().exit_code, 0);
  ASSERT_TRUE(plan.write(dir / "a.csv", "new a").ok());
  ASSERT_TRUE(plan.write(dir / "b.svg", "new b").ok());
  ASSERT_TRUE(plan.commit().ok());
  EXPECT_EQ(read(dir / "a.csv"), "new a");
  EXPECT_EQ(read(dir / "b.svg"), "new b");
  EXPECT_EQ(names(dir), (std::set<std::string>{"a.csv", "b.svg"}));
}

// A rename that fails half-way (here a folder appeared where the second file goes) puts the
// first file's old version back.
TEST(OutputPlan, ACommitThatFailsHalfWayPutsTheEarlierFilesBack) {
  const TempFolder dir("plan-undo");
  write(dir / "a.csv", "old");
  OutputPlan plan;
  plan.add("--csv", dir / "a.csv");
  plan.add("--svg", dir / "b.svg");
  plan.add("--png", dir / "c.png");
  ASSERT_EQ(plan.prepare().exit_code, 0);
  for (const char* f : {"a.csv", "b.svg", "c.png"}) ASSERT_TRUE(plan.write(dir / f, "new").ok());
  fs::create_directories(dir / "c.png" / "in-the-way");
  EXPECT_FALSE(plan.commit().ok());
  EXPECT_EQ(read(dir / "a.csv"), "old");
  EXPECT_EQ(names(dir), (std::set<std::string>{"a.csv", "c.png"}));
}

TEST(OutputPlan, AFolderArrivesWholeOrMergesIntoTheOneThere) {
  const TempFolder dir("plan-folder");
  OutputPlan fresh;
  fresh.add_folder("--out", dir / "runs" / "m");
  ASSERT_EQ(fresh.prepare().exit_code, 0);
  write(fresh.staging(dir / "runs" / "m") / "config.json", "{}");
  ASSERT_TRUE(fresh.commit().ok());
  EXPECT_EQ(read(dir / "runs" / "m" / "config.json"), "{}");

  write(dir / "runs" / "m" / "notes.txt", "mine");
  OutputPlan again;
  again.add_folder("--out", dir / "runs" / "m" / "");
  ASSERT_EQ(again.prepare().exit_code, 0);
  write(again.staging(dir / "runs" / "m") / "config.json", "{\"v\":2}");
  ASSERT_TRUE(again.commit().ok());
  EXPECT_EQ(read(dir / "runs" / "m" / "config.json"), "{\"v\":2}");
  EXPECT_EQ(read(dir / "runs" / "m" / "notes.txt"), "mine");
  EXPECT_EQ(names(dir / "runs"), (std::set<std::string>{"m"}));
}

}  // namespace
}  // namespace poslab

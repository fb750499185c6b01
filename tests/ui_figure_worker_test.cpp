// The workers that keep the UI thread free: the one that builds views' figures (builds run
// elsewhere, requests made while one builds coalesce to the newest, a failed build keeps the
// figure shown) and the export queue.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/workspace.hpp"
#include "gpu/headless.hpp"
#include "figures/assets.hpp"
#include "gui/export_queue.hpp"
#include "gui/figure_worker.hpp"
#include "temp_folder.hpp"

namespace poslab {
namespace {

// Refreshes until a build is installed (the test fails rather than hangs after 10 s).
template <class T>
void wait_for_refresh(FigureWorker<T>& worker) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!worker.refresh()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no build finished";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(FigureWorker, BuildsOffTheCallingThreadAndIsBusyUntilTheFigureIsTaken) {
  FigureWorker<std::thread::id> worker;
  EXPECT_FALSE(worker.busy());
  worker.request([] { return std::this_thread::get_id(); });
  EXPECT_TRUE(worker.busy());
  wait_for_refresh(worker);
  EXPECT_FALSE(worker.busy());
  EXPECT_NE(worker.current(), std::this_thread::get_id());
  EXPECT_TRUE(worker.failure().empty());
  EXPECT_FALSE(worker.refresh());  // taken once
}

TEST(FigureWorker, RequestsMadeWhileOneBuildsCoalesceToTheNewest) {
  FigureWorker<int> worker;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> started{false};
  std::vector<int> built;  // written by the worker thread only, read after it is idle
  worker.request([&, released] {
    started = true;
    released.wait();
    built.push_back(1);
    return 1;
  });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  for (int value = 2; value <= 5; ++value)
    worker.request([&built, value] {
      built.push_back(value);
      return value;
    });
  release.set_value();
  int shown = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (worker.busy()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    if (worker.refresh()) shown = worker.current();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(shown, 5);
  EXPECT_EQ(built, (std::vector<int>{1, 5}));  // 2, 3 and 4 were replaced before they began
}

TEST(FigureWorker, AFailedBuildKeepsTheFigureShownAndSaysWhy) {
  FigureWorker<int> worker;
  worker.request([] { return 7; });
  wait_for_refresh(worker);
  worker.request([]() -> int { throw std::runtime_error("too large"); });
  wait_for_refresh(worker);
  EXPECT_EQ(worker.current(), 7);
  EXPECT_NE(worker.failure().find("too large"), std::string::npos);
  EXPECT_FALSE(worker.busy());
  worker.request([] { return 8; });
  wait_for_refresh(worker);
  EXPECT_EQ(worker.current(), 8);
  EXPECT_TRUE(worker.failure().empty());
}

TEST(FigureWorker, DestroyingItWaitsForTheBuildInFlight) {
  std::atomic<bool> finished{false};
  {
    FigureWorker<int> worker;
    std::atomic<bool> started{false};
    worker.request([&] {
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      finished = true;
      return 1;
    });
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(finished);
}

}  // namespace
}  // namespace poslab

// The GUI's export queue: files made on its thread, the PNG drawn where pump() runs (here, with an
// EGL context as the window's would be); the same bytes as export_view writes in one go.

namespace poslab {
namespace {

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ExportQueue, WritesWhatViewIdWritesAndReportsEveryExportInOrder) {
  auto context = gpu::HeadlessContext::create();
  ASSERT_TRUE(context.ok()) << context.error();
  Workspace workspace;
  ASSERT_TRUE(workspace.load_embeddings(asset_path(kDefaultEmbeddingsFile)).ok());
  State state;
  state.model.sentence = "the dog chased another dog";
  ASSERT_TRUE(workspace.update(state).ok());
  const test_support::TempFolder dir("export-queue");

  std::vector<std::string> expected_written;
  for (ViewId view : {ViewId::Patterns, ViewId::Attention}) {
    ExportRequest r;
    r.png = (dir / (std::string(to_string(view)) + "-direct.png")).string();
    r.svg = (dir / (std::string(to_string(view)) + "-direct.svg")).string();
    r.csv = (dir / (std::string(to_string(view)) + "-direct.csv")).string();
    ASSERT_TRUE(export_view(view, state, *workspace.results(), workspace.embeddings(), r, expected_written).ok());
  }

  ExportQueue queue;
  std::vector<std::string> reported;
  int reports = 0;
  const ExportQueue::Report report = [&](const Status& s, const std::vector<std::string>& written, const std::string&) {
    EXPECT_TRUE(s.ok()) << s.error();
    ++reports;
    reported.insert(reported.end(), written.begin(), written.end());
  };
  for (ViewId view : {ViewId::Patterns, ViewId::Attention}) {
    ExportRequest r;
    r.png = (dir / (std::string(to_string(view)) + "-queued.png")).string();
    r.svg = (dir / (std::string(to_string(view)) + "-queued.svg")).string();
    r.csv = (dir / (std::string(to_string(view)) + "-queued.csv")).string();
    queue.start(view, state, workspace.results_shared(), workspace.embeddings_shared(), r);
  }
  EXPECT_TRUE(queue.busy());
  queue.finish(report);
  EXPECT_FALSE(queue.busy());
  EXPECT_EQ(reports, 2);
  EXPECT_EQ(reported.size(), 6u);
  for (const char* view : {"patterns", "attention"})
    for (const char* ext : {".png", ".svg", ".csv"}) {
      const std::string direct = file_bytes(dir / (std::string(view) + "-direct" + ext));
      ASSERT_FALSE(direct.empty()) << view << ext;
      EXPECT_EQ(file_bytes(dir / (std::string(view) + "-queued" + ext)), direct) << view << ext;
    }
  // A bad path is reported as an error, and nothing else is lost.
  ExportRequest bad;
  bad.png = (dir / "no-such-folder" / "x.png").string();
  queue.start(ViewId::Patterns, state, workspace.results_shared(), workspace.embeddings_shared(), bad);
  int failures = 0;
  queue.finish([&](const Status& s, const std::vector<std::string>&, const std::string&) { failures += s.ok() ? 0 : 1; });
  EXPECT_EQ(failures, 1);

  // Every view into a folder, one PNG drawn per pump: the files export_all_views writes.
  std::vector<std::string> all_direct;
  ASSERT_TRUE(export_all_views(state, *workspace.results(), workspace.embeddings(), dir / "all-direct", 1.0f, all_direct).ok());
  std::string folder_said;
  std::vector<std::string> all_queued;
  queue.start_all(state, workspace.results_shared(), workspace.embeddings_shared(), dir / "all-queued", 1.0f);
  int pumps = 0;
  while (queue.busy()) {
    queue.pump([&](const Status& s, const std::vector<std::string>& written, const std::string& folder) {
      EXPECT_TRUE(s.ok()) << s.error();
      all_queued = written;
      folder_said = folder;
    });
    ++pumps;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(folder_said, (dir / "all-queued").string());
  ASSERT_EQ(all_queued.size(), all_direct.size());
  EXPECT_GE(pumps, static_cast<int>(all_views().size()));  // one PNG a frame
  for (const std::string& written : all_direct) {
    const std::string name = std::filesystem::path(written).filename().string();
    EXPECT_EQ(file_bytes(dir / "all-queued" / name), file_bytes(written)) << name;
  }
  // Into a file instead of a folder: an error, and the file is left as it was.
  { std::ofstream(dir / "a-file") << "keep"; }
  int all_failures = 0;
  queue.start_all(state, workspace.results_shared(), workspace.embeddings_shared(), dir / "a-file", 1.0f);
  queue.finish([&](const Status& s, const std::vector<std::string>&, const std::string&) { all_failures += s.ok() ? 0 : 1; });
  EXPECT_EQ(all_failures, 1);
  EXPECT_EQ(file_bytes(dir / "a-file"), "keep");
}

}  // namespace
}  // namespace poslab

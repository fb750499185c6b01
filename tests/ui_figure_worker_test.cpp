// The worker that builds views' figures off the UI thread: builds run elsewhere, requests made
// while one builds coalesce to the newest, a failed build keeps the figure shown.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ui/figure_worker.hpp"

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

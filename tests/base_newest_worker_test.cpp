// The one worker behind every "newest request wins" job (pipeline runs, model runs, the dog
// demo's runs, views' figures): requests made while one runs coalesce to the newest, a superseded
// run is told to stop and its result never arrives, cancel() drops the newest, progress is the
// newest's, and the thread is joined when the worker goes. Every wait is for a condition.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "base/newest_worker.hpp"

namespace poslab {
namespace {

// Polls `condition` until it holds; the test fails rather than hangs after 10 s.
template <class Condition>
void wait_until(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the condition never held";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// A task that says it started, then runs until released or cancelled, and reports what it saw.
struct Gate {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> started{false}, saw_cancel{false};
};

TEST(NewestWorker, ANewerRequestCancelsTheRunningOneReplacesTheWaitingAndOnlyItsResultArrives) {
  NewestWorker<int> worker;
  Gate gate;
  std::mutex ran_mutex;
  std::vector<int> ran;  // which tasks began, in order
  worker.request([&](const RunSignals& run) {
    gate.started = true;
    while (!run.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    gate.saw_cancel = true;
    gate.released.wait();  // held until every newer request is made, so that none can begin early
    std::lock_guard lock(ran_mutex);
    ran.push_back(1);
    return 1;
  });
  wait_until([&] { return gate.started.load(); });
  for (int value = 2; value <= 4; ++value)
    worker.request([&, value](const RunSignals&) {
      std::lock_guard lock(ran_mutex);
      ran.push_back(value);
      return value;
    });
  EXPECT_TRUE(worker.busy());
  wait_until([&] { return gate.saw_cancel.load(); });  // the first run was told to stop by the newer request
  gate.release.set_value();
  worker.wait();
  EXPECT_EQ(ran, (std::vector<int>{1, 4}));  // 2 and 3 were replaced before they began
  const std::optional<int> result = worker.take();
  ASSERT_TRUE(result);
  EXPECT_EQ(*result, 4);  // never the superseded run's 1
  EXPECT_FALSE(worker.take());  // taken once
  EXPECT_FALSE(worker.busy());
  EXPECT_FALSE(worker.running());
}

TEST(NewestWorker, CancelStopsTheNewestAndDropsItsResult) {
  NewestWorker<int> worker;
  Gate gate;
  worker.request([&](const RunSignals& run) {
    gate.started = true;
    while (!run.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    gate.saw_cancel = true;
    return 1;
  });
  wait_until([&] { return gate.started.load(); });
  EXPECT_TRUE(worker.running());
  worker.cancel();
  EXPECT_FALSE(worker.running());
  EXPECT_FALSE(worker.busy());
  worker.wait();
  EXPECT_TRUE(gate.saw_cancel);
  EXPECT_FALSE(worker.take());
  worker.request([](const RunSignals&) { return 2; });  // the worker goes on after a cancel
  worker.wait();
  EXPECT_EQ(worker.take(), 2);
}

TEST(NewestWorker, ProgressIsTheNewestRequests) {
  NewestWorker<int> worker;
  EXPECT_EQ(worker.progress(), 1.0);  // nothing asked
  Gate gate;
  worker.request([&](const RunSignals& run) {
    run.progress_sink()(0.25);
    gate.started = true;
    gate.released.wait();
    return 0;
  });
  wait_until([&] { return gate.started.load(); });
  EXPECT_EQ(worker.progress(), 0.25);
  EXPECT_TRUE(worker.running());
  gate.release.set_value();
  worker.wait();
  EXPECT_FALSE(worker.running());
  EXPECT_EQ(worker.progress(), 1.0);  // none runs
  EXPECT_TRUE(worker.busy());  // finished, not yet taken
  EXPECT_EQ(worker.take(), 0);
}

TEST(NewestWorker, WithFinishASupersededRunEndsAndItsResultIsDeliveredThenTheNewest) {
  NewestWorker<int> worker(Superseded::Finish);
  Gate gate;
  worker.request([&](const RunSignals& run) {
    gate.started = true;
    gate.released.wait();
    gate.saw_cancel = run.cancelled();
    return 1;
  });
  wait_until([&] { return gate.started.load(); });
  worker.request([](const RunSignals&) { return 2; });
  gate.release.set_value();
  std::vector<int> delivered;
  wait_until([&] {
    if (auto r = worker.take()) delivered.push_back(*r);
    return !worker.busy();
  });
  EXPECT_FALSE(gate.saw_cancel);
  ASSERT_FALSE(delivered.empty());
  EXPECT_EQ(delivered.back(), 2);
}

TEST(NewestWorker, DestroyingItCancelsTheRunInFlightAndJoinsItsThread) {
  std::atomic<bool> saw_cancel{false}, ended{false};
  {
    NewestWorker<int> worker;
    std::atomic<bool> started{false};
    worker.request([&](const RunSignals& run) {
      started = true;
      while (!run.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      saw_cancel = true;
      ended = true;
      return 0;
    });
    wait_until([&] { return started.load(); });
  }
  EXPECT_TRUE(saw_cancel);
  EXPECT_TRUE(ended);  // joined: the run had ended when the destructor returned
}

}  // namespace
}  // namespace poslab

// The Train tab's worker: encodings trained one after another off the calling thread, live
// losses while it runs, each model saved as a folder, the extrapolation measured at the end, and
// Stop ending the job at the next step.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/train/train_worker.hpp"
#include "temp_folder.hpp"

namespace poslab {
namespace {

namespace fs = std::filesystem;

TrainSettings tiny(PositionKind positions, int steps) {
  TrainSettings s = default_train_settings();
  s.task = Task{TaskKind::Copy, 8};
  s.train_length = 4;
  s.model.width = 32;
  s.model.heads = 2;
  s.model.layers = 1;
  s.model.positions = positions;
  s.steps = steps;
  s.batch = 4;
  s.warmup = 2;
  return s;
}

TEST(TrainWorker, TrainsEachEncodingSavesItAndMeasuresTheExtrapolation) {
  TrainJob job;
  job.runs = {tiny(PositionKind::Rope, 30), tiny(PositionKind::Alibi, 30)};
  const test_support::TempFolder tmp("train-worker");
  job.folder = tmp / "two";  // made by the worker
  job.eval_lengths = {4, 8};
  job.eval_sequences = 10;
  TrainWorker worker;
  ASSERT_TRUE(worker.start(job));
  EXPECT_FALSE(worker.start(job));  // one job at a time
  // The caller's thread is free while it runs: poll as a window would.
  std::size_t most_steps_seen = 0;
  while (worker.running()) {
    const TrainProgress p = worker.progress();
    ASSERT_EQ(p.runs.size(), 2u);
    most_steps_seen = std::max(most_steps_seen, p.runs[0].log.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  worker.wait();
  const TrainProgress p = worker.progress();
  EXPECT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.phase, "done");
  EXPECT_DOUBLE_EQ(p.fraction, 1.0);
  EXPECT_GT(most_steps_seen, 0u);
  for (const auto& run : p.runs) {
    EXPECT_TRUE(run.finished);
    EXPECT_FALSE(run.stopped);
    EXPECT_EQ(run.log.size(), 30u);
    EXPECT_TRUE(fs::exists(run.folder / "model.safetensors")) << run.folder;
  }
  EXPECT_EQ(p.runs[0].folder.filename(), "copy-rope");
  // RoPE as trained and with four scalings, ALiBi as trained; two lengths each.
  ASSERT_EQ(p.curves.size(), 6u);
  for (const auto& c : p.curves) EXPECT_EQ(c.rows.size(), 2u) << c.label();
  // The saved model is the one that was measured: the same numbers again from its folder.
  auto saved = load_model_folder(p.runs[1].folder);
  ASSERT_TRUE(saved) << saved.error();
  EvalSettings eval;
  eval.sequences = 10;
  const auto again = evaluate_lengths(saved->params, saved->task, saved->train_length, {4, 8}, eval);
  EXPECT_EQ(again[1].loss, p.curves.back().rows[1].loss);
}

TEST(TrainWorker, StopEndsTheJobAtTheNextStepAndKeepsTheModel) {
  TrainJob job;
  job.runs = {tiny(PositionKind::T5, 100000), tiny(PositionKind::None, 100000)};
  const test_support::TempFolder tmp("train-worker");
  job.folder = tmp / "stop";  // made by the worker
  TrainWorker worker;
  ASSERT_TRUE(worker.start(job));
  while (worker.progress().runs[0].log.size() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  worker.stop();
  worker.wait();
  const TrainProgress p = worker.progress();
  EXPECT_EQ(p.phase, "stopped");
  EXPECT_FALSE(p.running);
  EXPECT_TRUE(p.runs[0].stopped);
  EXPECT_LT(p.runs[0].log.size(), 100u);
  EXPECT_TRUE(fs::exists(p.runs[0].folder / "config.json"));  // the weights so far, saved
  EXPECT_TRUE(p.runs[1].log.empty());                         // the next encoding never started
  EXPECT_TRUE(p.curves.empty());
}

TEST(TrainWorker, AFailedSaveIsReportedNotThrown) {
  TrainJob job;
  job.runs = {tiny(PositionKind::Rope, 2)};
  job.folder = "/proc/poslab-cannot-write-here";
  TrainWorker worker;
  ASSERT_TRUE(worker.start(job));
  worker.wait();
  const TrainProgress p = worker.progress();
  EXPECT_FALSE(p.error.empty());
  EXPECT_EQ(p.phase, "failed");
  EXPECT_FALSE(worker.running());
}

}  // namespace
}  // namespace poslab

#pragma once
// Training runs off the UI thread: several encodings trained one after another on one task, each
// saved as a model folder, then the length-extrapolation experiment over all of them. The window
// polls a snapshot (live losses, progress, curves) every frame; Stop ends the job at the next step.
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/train/extrapolation.hpp"

namespace poslab {

struct TrainJob {
  std::vector<TrainSettings> runs;        // one per encoding, trained in this order
  std::filesystem::path folder;           // each run is saved in folder/<task>-<encoding>
  std::vector<int> eval_lengths;          // empty: 1× … 16× the training length
  int eval_sequences = 100;
  bool with_scalings = true;              // RoPE models also with PI, NTK, dynamic and YaRN
};

// What the window shows; copied out under the lock.
struct TrainProgress {
  struct Run {
    std::string encoding;
    std::vector<TrainStep> log;
    std::filesystem::path folder;  // set once saved
    double seconds = 0.0;
    bool finished = false, stopped = false;
  };
  std::vector<Run> runs;
  std::vector<ExtrapolationCurve> curves;
  std::string phase;     // "training rope (3/6)", "evaluating 12/40", "done", "stopped"
  double fraction = 0.0; // of the whole job, 0 … 1
  std::string error;     // empty unless the job failed
  bool running = false;
};

class TrainWorker {
 public:
  TrainWorker() = default;
  TrainWorker(const TrainWorker&) = delete;
  TrainWorker& operator=(const TrainWorker&) = delete;
  ~TrainWorker();

  // Starts a job unless one runs (returns false then). Models evaluated only (no training): give
  // `evaluate_only` folders and no runs.
  bool start(TrainJob job, std::vector<std::filesystem::path> evaluate_only = {});
  void stop();  // the current step finishes, the model so far is saved, nothing more runs
  bool running() const { return running_; }
  TrainProgress progress() const;
  std::uint64_t version() const { return version_; }  // changes with every update
  void wait();

 private:
  void run(TrainJob job, std::vector<std::filesystem::path> evaluate_only);
  template <class F>
  void update(F&& change);

  mutable std::mutex mutex_;
  TrainProgress progress_;
  std::atomic<bool> stop_{false}, running_{false};
  std::atomic<std::uint64_t> version_{0};
  std::thread thread_;
};

}  // namespace poslab

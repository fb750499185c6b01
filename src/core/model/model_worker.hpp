#pragma once
// Runs a model off the UI thread. A new request cancels a run that is no longer wanted (it stops
// at its next layer) instead of queueing behind it; the window polls for the latest result.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/model/model_run.hpp"

namespace poslab {

class ModelWorker {
 public:
  ModelWorker() = default;
  ModelWorker(const ModelWorker&) = delete;
  ModelWorker& operator=(const ModelWorker&) = delete;
  ~ModelWorker();

  // Starts running `request` on `model` unless that is what runs or ran last.
  void request(std::shared_ptr<const Checkpoint> model, const ModelRequest& request);
  // Stops the current run (its result is dropped).
  void cancel();

  bool running() const;
  double progress() const;  // of the current run, 0 … 1
  // The latest finished run, and the error of the latest failed one (empty when it succeeded).
  std::shared_ptr<const ModelRun> latest() const;
  std::string error() const;
  // Changes when latest() or error() changes; views key their caches on it.
  std::uint64_t version() const { return version_; }
  // Blocks until no run is in flight (tests, scripted screenshots).
  void wait();

 private:
  struct Job {
    std::shared_ptr<const Checkpoint> model;
    ModelRequest request;
    std::atomic<bool> cancel{false}, done{false};
    std::atomic<double> progress{0.0};
    std::thread thread;
  };
  void reap(bool all);

  std::vector<std::unique_ptr<Job>> jobs_;  // the last one is current; older ones were cancelled
  mutable std::mutex mutex_;
  std::shared_ptr<const ModelRun> latest_;
  std::string error_;
  std::atomic<std::uint64_t> version_{0};
  const Checkpoint* last_model_ = nullptr;
  std::optional<ModelRequest> last_request_;
};

}  // namespace poslab

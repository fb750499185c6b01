#pragma once
// Runs a model off the UI thread. A new request cancels a run that is no longer wanted (it stops
// at its next layer) instead of queueing behind it; the window polls for the latest result.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/model/model_run.hpp"
#include "base/newest_worker.hpp"

namespace poslab {

class ModelWorker {
 public:
  // Starts running `request` on `model` unless that is what runs or ran last.
  void request(std::shared_ptr<const Checkpoint> model, const ModelRequest& request);
  // Stops the current run (its result is dropped).
  void cancel();

  bool running() const { return worker_.running(); }
  double progress() const { return worker_.progress(); }  // of the current run, 0 … 1
  // The latest finished run, and the error of the latest failed one (empty when it succeeded).
  std::shared_ptr<const ModelRun> latest() const;
  std::string error() const;
  // Changes when latest() or error() changes; views key their caches on it.
  std::uint64_t version() const;
  // Blocks until no run is in flight (tests, scripted screenshots).
  void wait() { worker_.wait(); }

 private:
  // Installs a run the worker finished: results come in when asked for (every getter), so that
  // they are never older than what the worker has.
  void collect() const;

  const Checkpoint* last_model_ = nullptr;
  std::optional<ModelRequest> last_request_;
  mutable std::mutex mutex_;  // the getters may be called from any thread
  mutable std::shared_ptr<const ModelRun> latest_;
  mutable std::string error_;
  mutable std::uint64_t version_ = 0;
  // Last: its thread is joined (the run in flight cancelled) before the members above go.
  mutable NewestWorker<Result<ModelRun>> worker_;
};

}  // namespace poslab

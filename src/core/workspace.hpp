#pragma once
// Holds the loaded embeddings and the latest results for a State, and recomputes only when a
// pipeline input changed. Shared by the GUI and `poslab export`: export computes in place
// (update), the GUI off its thread (update_async), so that the window never waits for it.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/attention/backend_choice.hpp"
#include "core/attention/pipeline.hpp"
#include "base/newest_worker.hpp"
#include "core/state.hpp"

namespace poslab {

class Workspace {
 public:
  Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace();  // cancels and joins any run still going

  // Loads embeddings from `path` (any supported format; `vocab` for a .npy). On failure the
  // current table stays and the error is returned.
  Status load_embeddings(const std::string& path, const std::string& vocab = {}, const std::string& tensor = {});
  // Installs a table loaded elsewhere (on a loader thread).
  void set_embeddings(EmbeddingTable table, const std::string& path);
  bool has_embeddings() const { return table_->dim() > 0; }
  const EmbeddingTable& embeddings() const { return *table_; }
  // The same table, for a worker thread that must keep it while a new one is installed.
  std::shared_ptr<const EmbeddingTable> embeddings_shared() const { return table_; }
  const std::string& embeddings_path() const { return table_path_; }

  // The GPU backend, or null and why there is none (the driver's words); `renderer` is the GL
  // context's GL_RENDERER (empty: none), which decides what --backend auto takes.
  void set_gpu_backend(AttentionBackend* gpu, std::string why = {}, std::string renderer = {}) {
    gpu_ = gpu;
    gpu_unavailable_ = std::move(why);
    renderer_ = std::move(renderer);
  }
  // The path that computes for `wanted`, and why.
  BackendChoice backend_choice(Backend wanted) const {
    return choose_backend(wanted, renderer_, gpu_ != nullptr, gpu_unavailable_);
  }

  // The T × T matrices the CPU path keeps from now on (default: every head's scores and weights).
  void keep_matrices(const MatricesKept& keep) { keep_ = keep; }

  // Recomputes now if the model settings, backend or table changed since the last call. On error
  // the previous results stay, and the error is returned until the inputs change.
  Status update(const State& state);
  // The same off the calling thread: a change starts a run on a worker thread, and a run still
  // going for older settings is cancelled (it stops at its next step, its result dropped) rather
  // than waited for. Each call installs a finished run's results. The GPU path runs at once on
  // the calling thread instead, unless the backend is callable from any thread (GpuThread).
  Status update_async(const State& state);
  // Until the newest run's results are in place: a run that finished after this frame's
  // update_async still counts, or a scripted screenshot (and a test reading --probe) would take
  // the next frame, drawn before update_async installs them, for the finished state.
  bool computing() const { return runs_.busy(); }
  double progress() const { return runs_.progress(); }
  // Seconds the current run has taken so far (0 when none runs).
  double computing_seconds() const;
  // Blocks until no run is in flight, then installs its results (tests, scripted screenshots).
  Status wait();
  // Cancels every run in flight and waits for them to end (before the GPU backend goes).
  void stop();

  const Results* results() const { return results_.get(); }
  // Why the newest settings computed nothing (over the memory budget, say), while they are the
  // ones asked for; empty once a run succeeds. results() then still holds the ones from before.
  const std::string& failure() const { return failure_; }
  // The same results, for a worker thread that must keep them while newer ones are installed.
  std::shared_ptr<const Results> results_shared() const { return results_; }
  // Changes whenever new results are computed; views key their caches on it.
  std::uint64_t version() const { return version_; }

 private:
  struct Inputs {
    ModelSettings model;
    Backend backend = Backend::Cpu;  // the resolved path
    bool check = false;
    std::uint64_t table_version = 0;
    MatricesKept keep;
    bool operator==(const Inputs&) const = default;
  };
  // A run the worker finished, with what it computed from.
  struct Computed {
    Inputs inputs;
    Result<Results> result;
  };
  Inputs inputs_of(const State& state) const;
  Result<Results> compute(const State& state, const Inputs& inputs, const PipelineControl& control);
  Status install(const Inputs& inputs, Result<Results> computed);
  // Installs the newest run's results if it finished; false when there were none.
  bool collect(Status* status = nullptr);

  std::shared_ptr<const EmbeddingTable> table_;  // shared with a run in flight
  std::string table_path_;
  std::uint64_t table_version_ = 0;
  AttentionBackend* gpu_ = nullptr;
  std::string gpu_unavailable_;
  std::string renderer_;
  MatricesKept keep_;
  std::shared_ptr<const Results> results_;  // shared with the views' figure workers
  std::uint64_t version_ = 0;
  std::optional<Inputs> computed_;   // what the current results (or failure) came from
  std::optional<Inputs> requested_;  // what the newest run computes
  std::string failure_;  // why the last attempt failed, while its inputs are unchanged
  std::chrono::steady_clock::time_point started_;  // when the newest run was asked for
  NewestWorker<Computed> runs_;  // last: joined (its run cancelled) before what it reads goes
};

}  // namespace poslab

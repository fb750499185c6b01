#include "core/workspace.hpp"

#include <chrono>

#include "core/jobs.hpp"
#include "core/formats/embeddings.hpp"
#include "core/formats/formats.hpp"

namespace poslab {

Workspace::Workspace() : table_(std::make_shared<const EmbeddingTable>()) {}

Workspace::~Workspace() { stop(); }

void Workspace::stop() {
  for (auto& j : jobs_) j->cancel = true;
  reap(true);
}

Status Workspace::load_embeddings(const std::string& path, const std::string& vocab, const std::string& tensor) {
  auto loaded = load_embeddings_file(path, vocab, tensor);
  if (!loaded) return Error{loaded.error()};
  set_embeddings(std::move(*loaded), path);
  return Ok{};
}

void Workspace::set_embeddings(EmbeddingTable table, const std::string& path) {
  table_ = std::make_shared<const EmbeddingTable>(std::move(table));  // a run in flight keeps the old one
  table_path_ = path;
  ++table_version_;
}

Workspace::Inputs Workspace::inputs_of(const State& state) const {
  return {state.model, backend_choice(state.backend).backend, state.check_against_cpu, table_version_, keep_};
}

Result<Results> Workspace::compute(const State& state, const Inputs& in, const PipelineControl& control) {
  CpuBackend cpu;
  AttentionBackend& backend = (in.backend == Backend::Gpu && gpu_) ? *gpu_ : static_cast<AttentionBackend&>(cpu);
  PipelineControl kept = control;
  kept.keep = in.keep;
  auto computed = run_pipeline(in.model, *table_, backend, in.check, kept);
  if (!computed) return computed;
  const BackendChoice choice = backend_choice(state.backend);
  computed->backend_reason = choice.reason;
  computed->backend_brief = choice.brief;
  if (state.backend == Backend::Gpu && !gpu_)
    computed->notes.push_back("GPU path unavailable, computed on the CPU" +
                              (gpu_unavailable_.empty() ? std::string(".") : ": " + gpu_unavailable_));
  return computed;
}

Status Workspace::install(const Inputs& in, Result<Results> computed) {
  // Remember the attempt either way, so that a bad setting is not retried on every frame.
  computed_ = in;
  if (!computed) {
    failure_ = computed.error();
    return Error{failure_};
  }
  failure_.clear();
  results_ = std::make_shared<const Results>(std::move(*computed));
  ++version_;
  return Ok{};
}

Status Workspace::update(const State& state) {
  if (!has_embeddings()) return Error{"no embeddings are loaded"};
  const Inputs in = inputs_of(state);
  if (computed_ && *computed_ == in) return failure_.empty() ? Status(Ok{}) : Status(Error{failure_});
  for (auto& j : jobs_) j->cancel = true;
  requested_ = in;
  return install(in, compute(state, in, {}));
}

void Workspace::reap(bool all) {
  reap_jobs(jobs_, all);
}

Status Workspace::update_async(const State& state) {
  if (!has_embeddings()) return Error{"no embeddings are loaded"};
  // A finished current run: its results replace the shown ones.
  if (!jobs_.empty() && jobs_.back()->done && !jobs_.back()->cancel && jobs_.back()->result) {
    Job& j = *jobs_.back();
    auto result = std::move(*j.result);
    j.result.reset();
    j.cancel = true;  // taken
    install(j.inputs, std::move(result));
  }
  reap(false);
  const Inputs in = inputs_of(state);
  if (requested_ && *requested_ == in) {
    if (computed_ && *computed_ == in) return failure_.empty() ? Status(Ok{}) : Status(Error{failure_});
    return Ok{};  // still computing
  }
  for (auto& j : jobs_) j->cancel = true;  // stale: dropped, not waited for
  requested_ = in;
  // A GPU backend bound to this thread's OpenGL context computes here; one with a thread of its
  // own (the GUI's) is called from the worker like the CPU.
  AttentionBackend* gpu = in.backend == Backend::Gpu ? gpu_ : nullptr;
  if (gpu && !gpu->callable_from_any_thread()) return install(in, compute(state, in, {}));
  auto job = std::make_unique<Job>();
  job->inputs = in;
  job->started = std::chrono::steady_clock::now();
  Job* j = job.get();
  // The worker sees only what it is given: the table (shared) and the words for its results.
  const BackendChoice choice = backend_choice(state.backend);
  std::string note = state.backend == Backend::Gpu && !gpu ? "GPU path unavailable, computed on the CPU" +
                                                         (gpu_unavailable_.empty() ? std::string(".") : ": " + gpu_unavailable_)
                                                   : std::string();
  j->thread = std::thread([j, table = table_, choice, gpu, note = std::move(note)] {
    PipelineControl control;
    control.keep = j->inputs.keep;
    control.cancel = &j->cancel;
    control.progress = [j](double f) { j->progress = f; };
    CpuBackend cpu;
    AttentionBackend& backend = gpu ? *gpu : static_cast<AttentionBackend&>(cpu);
    auto computed = run_pipeline(j->inputs.model, *table, backend, j->inputs.check && gpu, control);
    if (computed) {
      computed->backend_reason = choice.reason;
      computed->backend_brief = choice.brief;
      if (!note.empty()) computed->notes.push_back(note);
    }
    j->result = std::move(computed);
    j->done = true;
  });
  jobs_.push_back(std::move(job));
  return Ok{};
}

double Workspace::computing_seconds() const {
  if (!computing()) return 0.0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - jobs_.back()->started).count();
}

Status Workspace::wait() {
  if (jobs_.empty()) return failure_.empty() ? Status(Ok{}) : Status(Error{failure_});
  if (jobs_.back()->thread.joinable()) jobs_.back()->thread.join();
  Job& j = *jobs_.back();
  Status status = failure_.empty() ? Status(Ok{}) : Status(Error{failure_});
  if (!j.cancel && j.result) {
    auto result = std::move(*j.result);
    j.result.reset();
    j.cancel = true;
    status = install(j.inputs, std::move(result));
  }
  reap(true);
  return status;
}

}  // namespace poslab

#include "core/workspace.hpp"

#include <chrono>

#include "core/formats/embeddings.hpp"
#include "core/formats/formats.hpp"

namespace poslab {

Workspace::Workspace() : table_(std::make_shared<const EmbeddingTable>()) {}

Workspace::~Workspace() { stop(); }

void Workspace::stop() { runs_.stop(); }

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
  runs_.cancel();
  requested_ = in;
  return install(in, compute(state, in, {}));
}

bool Workspace::collect(Status* status) {
  std::optional<Computed> finished = runs_.take();
  if (!finished) return false;
  const Status installed = install(finished->inputs, std::move(finished->result));
  if (status) *status = installed;
  return true;
}

Status Workspace::update_async(const State& state) {
  if (!has_embeddings()) return Error{"no embeddings are loaded"};
  collect();  // a finished current run: its results replace the shown ones
  const Inputs in = inputs_of(state);
  if (requested_ && *requested_ == in) {
    if (computed_ && *computed_ == in) return failure_.empty() ? Status(Ok{}) : Status(Error{failure_});
    return Ok{};  // still computing
  }
  runs_.cancel();  // a stale run: dropped, not waited for
  requested_ = in;
  // A GPU backend bound to this thread's OpenGL context computes here; one with a thread of its
  // own (the GUI's) is called from the worker like the CPU.
  AttentionBackend* gpu = in.backend == Backend::Gpu ? gpu_ : nullptr;
  if (gpu && !gpu->callable_from_any_thread()) return install(in, compute(state, in, {}));
  started_ = std::chrono::steady_clock::now();
  // The worker sees only what it is given: the table (shared) and the words for its results.
  const BackendChoice choice = backend_choice(state.backend);
  std::string note = state.backend == Backend::Gpu && !gpu ? "GPU path unavailable, computed on the CPU" +
                                                         (gpu_unavailable_.empty() ? std::string(".") : ": " + gpu_unavailable_)
                                                   : std::string();
  runs_.request([in, table = table_, choice, gpu, note = std::move(note)](const RunSignals& run) {
    PipelineControl control;
    control.keep = in.keep;
    control.cancel = run.cancel_flag();
    control.progress = run.progress_sink();
    CpuBackend cpu;
    AttentionBackend& backend = gpu ? *gpu : static_cast<AttentionBackend&>(cpu);
    auto computed = run_pipeline(in.model, *table, backend, in.check && gpu, control);
    if (computed) {
      computed->backend_reason = choice.reason;
      computed->backend_brief = choice.brief;
      if (!note.empty()) computed->notes.push_back(note);
    }
    return Computed{in, std::move(computed)};
  });
  return Ok{};
}

double Workspace::computing_seconds() const {
  if (!computing()) return 0.0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

Status Workspace::wait() {
  runs_.wait();
  Status status = failure_.empty() ? Status(Ok{}) : Status(Error{failure_});
  collect(&status);
  return status;
}

}  // namespace poslab

#include "core/workspace.hpp"

#include "core/formats/embeddings.hpp"
#include "core/formats/formats.hpp"

namespace poslab {

Status Workspace::load_embeddings(const std::string& path, const std::string& vocab, const std::string& tensor) {
  auto loaded = load_embeddings_file(path, vocab, tensor);
  if (!loaded) return Error{loaded.error()};
  set_embeddings(std::move(*loaded), path);
  return Ok{};
}

void Workspace::set_embeddings(EmbeddingTable table, const std::string& path) {
  table_ = std::move(table);
  table_path_ = path;
  ++table_version_;
}

Status Workspace::update(const State& state) {
  if (!has_embeddings()) return Error{"no embeddings are loaded"};
  if (computed_model_ && *computed_model_ == state.model && computed_backend_ == state.backend &&
      computed_check_ == state.check_against_cpu && computed_table_version_ == table_version_)
    return failure_.empty() ? Status(Ok{}) : Status(Error{failure_});
  AttentionBackend& backend = (state.backend == Backend::Gpu && gpu_) ? *gpu_ : static_cast<AttentionBackend&>(cpu_);
  auto computed = run_pipeline(state.model, table_, backend, state.check_against_cpu);
  // Remember the attempt either way, so that a bad setting is not retried on every frame.
  computed_model_ = state.model;
  computed_backend_ = state.backend;
  computed_check_ = state.check_against_cpu;
  computed_table_version_ = table_version_;
  if (!computed) {
    failure_ = computed.error();
    return Error{failure_};
  }
  failure_.clear();
  if (state.backend == Backend::Gpu && !gpu_)
    computed->notes.push_back("GPU path unavailable, computed on the CPU" +
                              (gpu_unavailable_.empty() ? std::string(".") : ": " + gpu_unavailable_));
  results_ = std::move(*computed);
  ++version_;
  return Ok{};
}

}  // namespace poslab

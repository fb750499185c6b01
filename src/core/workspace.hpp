#pragma once
// Holds the loaded embeddings and the latest results for a State, and recomputes only when a
// pipeline input changed. Shared by the GUI and `poslab export`.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/attention/pipeline.hpp"
#include "core/state.hpp"

namespace poslab {

class Workspace {
 public:
  // Loads embeddings from `path` (any supported format; `vocab` for a .npy). On failure the
  // current table stays and the error is returned.
  Status load_embeddings(const std::string& path, const std::string& vocab = {}, const std::string& tensor = {});
  // Installs a table loaded elsewhere (on a loader thread).
  void set_embeddings(EmbeddingTable table, const std::string& path);
  bool has_embeddings() const { return table_.dim() > 0; }
  const EmbeddingTable& embeddings() const { return table_; }
  const std::string& embeddings_path() const { return table_path_; }

  // The backend used when the state asks for the GPU; null means the GPU is unavailable, and
  // `why` (the driver's words) goes into the notes of results computed on the CPU instead.
  void set_gpu_backend(AttentionBackend* gpu, std::string why = {}) {
    gpu_ = gpu;
    gpu_unavailable_ = std::move(why);
  }

  // Recomputes if the model settings, backend or table changed since the last call. On error the
  // previous results stay, and the error is returned until the inputs change.
  Status update(const State& state);

  const Results* results() const { return results_ ? &*results_ : nullptr; }
  // Changes whenever new results are computed; views key their caches on it.
  std::uint64_t version() const { return version_; }

 private:
  EmbeddingTable table_;
  std::string table_path_;
  std::uint64_t table_version_ = 0;
  AttentionBackend* gpu_ = nullptr;
  std::string gpu_unavailable_;
  CpuBackend cpu_;
  std::optional<Results> results_;
  std::uint64_t version_ = 0;
  // What the current results were computed from.
  std::optional<ModelSettings> computed_model_;
  Backend computed_backend_ = Backend::Cpu;
  bool computed_check_ = false;
  std::uint64_t computed_table_version_ = 0;
  std::string failure_;  // why the last attempt failed, while its inputs are unchanged
};

}  // namespace poslab

#pragma once
// Attention on the GPU with compute shaders, per head: scores with masks, row softmax, A·V.
// Needs a current OpenGL 4.3 context; create() says why when it cannot run.
#include <memory>

#include "core/attention.hpp"
#include "gpu/gl.hpp"

namespace poslab::gpu {

class GpuBackend final : public AttentionBackend {
 public:
  static Result<std::unique_ptr<GpuBackend>> create();
  std::string name() const override { return "GPU (" + renderer_ + ")"; }
  Result<AttentionOutput> run(const AttentionInput& input) override;
  // GPU time of the last run, from timer queries, in milliseconds.
  std::optional<double> last_device_ms() const override { return last_gpu_ms_; }

 private:
  GpuBackend() = default;
  ComputeProgram scores_, softmax_, context_;
  Buffer q_, k_, v_, valid_, s_, a_, c_;
  GlHandle<QueryDeleter> timer_;
  std::string renderer_;
  std::size_t max_block_bytes_ = 0;
  double last_gpu_ms_ = 0.0;
};

}  // namespace poslab::gpu

#pragma once
// The headless OpenGL context and GPU backend that exports and model runs compute and draw with,
// for every front end without a window (the command line, the Python module).
#include <memory>
#include <string>

#include "core/attention/backend_choice.hpp"
#include "core/state.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"

namespace poslab {

// The GL context with no display and the GPU backend when the state asks for it (--backend gpu,
// or auto on a hardware renderer); the reason when there is none, and which path runs and why.
struct HeadlessGpu {
  std::unique_ptr<gpu::HeadlessContext> context;
  std::unique_ptr<gpu::GpuBackend> backend;
  std::string unavailable;
  std::string renderer;  // the context's description (empty: no context)
  BackendChoice choice;
};
HeadlessGpu open_headless_gpu(Backend wanted);

}  // namespace poslab

#pragma once
// Which path computes the attention. `--backend auto` (the default) takes the GPU's compute
// shaders on a hardware renderer and the CPU path (Eigen) where OpenGL is a software rasterizer:
// there the shaders run on the same cores as Eigen, measured 30× slower (6.2 s against 0.18 s at
// T = 2048, bench/RESULTS.md). `gpu` and `cpu` force a path.
#include <string>
#include <string_view>

#include "core/state.hpp"

namespace poslab {

// True when a GL_RENDERER string (or a description containing it) names a software rasterizer:
// Mesa's llvmpipe, softpipe or swrast.
bool is_software_renderer(std::string_view renderer);

// Whether `wanted` asks for the GPU backend on this renderer (so that it is worth creating).
bool wants_gpu(Backend wanted, std::string_view renderer);

struct BackendChoice {
  Backend backend = Backend::Cpu;  // Gpu or Cpu, never Auto
  std::string reason;              // one line for the user: which path and why
  std::string brief;               // why in a few words, e.g. "auto: llvmpipe is a software renderer"
  bool operator==(const BackendChoice&) const = default;
};

// The path that runs for `wanted` on `renderer` (empty: no OpenGL context), given whether the
// GPU backend exists and, when it does not, why (the driver's words).
BackendChoice choose_backend(Backend wanted, std::string_view renderer, bool gpu_available,
                             std::string_view gpu_unavailable = {});

}  // namespace poslab

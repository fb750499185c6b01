#include "figures/headless_gpu.hpp"

#include <utility>

namespace poslab {

HeadlessGpu open_headless_gpu(Backend wanted) {
  HeadlessGpu g;
  if (auto created = gpu::HeadlessContext::create()) {
    g.context = std::move(*created);
    g.renderer = g.context->description();
    if (wants_gpu(wanted, g.renderer)) {
      if (auto b = gpu::GpuBackend::create()) g.backend = std::move(*b);
      else g.unavailable = b.error();
    }
  } else {
    g.unavailable = created.error();
  }
  g.choice = choose_backend(wanted, g.renderer, g.backend != nullptr, g.unavailable);
  return g;
}

}  // namespace poslab

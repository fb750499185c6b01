// The headless OpenGL context and GPU backend that exports and model runs draw and compute with.
#include "cli/commands.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/attention/backend_choice.hpp"
#include "core/export_data.hpp"
#include "core/formats/formats.hpp"
#include "core/options.hpp"
#include "core/session.hpp"
#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"
#include "figures/assets.hpp"
#include "tokenizer/tokenizer.hpp"
#include "core/tour/tour.hpp"
#include "plot/draw.hpp"
#include "figures/export.hpp"
#include "figures/launch.hpp"
#include "figures/model.hpp"
#include "core/model/model_run.hpp"
#include "figures/attention.hpp"
#include "cli/args.hpp"
#include "cli/train_cli.hpp"
#include "cli/animate_cli.hpp"

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

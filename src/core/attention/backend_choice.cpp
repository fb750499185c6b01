#include "core/attention/backend_choice.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace poslab {

bool is_software_renderer(std::string_view renderer) {
  std::string lower(renderer);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  constexpr std::array<std::string_view, 3> kSoftware = {"llvmpipe", "softpipe", "swrast"};
  return std::any_of(kSoftware.begin(), kSoftware.end(), [&](std::string_view s) { return lower.find(s) != std::string::npos; });
}

bool wants_gpu(Backend wanted, std::string_view renderer) {
  if (wanted == Backend::Gpu) return true;
  return wanted == Backend::Auto && !renderer.empty() && !is_software_renderer(renderer);
}

BackendChoice choose_backend(Backend wanted, std::string_view renderer, bool gpu_available, std::string_view gpu_unavailable) {
  const std::string why_not = gpu_unavailable.empty() ? std::string("no OpenGL 4.3 context") : std::string(gpu_unavailable);
  const std::string_view name = renderer.substr(0, renderer.find(" — "));  // describe_context's renderer part
  const std::string on = name.empty() ? std::string() : " on " + std::string(name);
  const std::string first_word(name.substr(0, name.find(' ')));  // "llvmpipe"
  switch (wanted) {
    case Backend::Cpu: return {Backend::Cpu, "CPU (Eigen): --backend cpu", "--backend cpu"};
    case Backend::Gpu:
      if (!gpu_available)
        return {Backend::Cpu, "CPU (Eigen): --backend gpu, but the GPU path is unavailable: " + why_not,
                "--backend gpu, but no GPU path"};
      return {Backend::Gpu,
              "GPU compute shaders" + on + ": --backend gpu" +
                  (is_software_renderer(renderer) ? " (a software renderer: the CPU path is faster here)" : ""),
              "--backend gpu"};
    case Backend::Auto:
      if (!renderer.empty() && is_software_renderer(renderer))
        return {Backend::Cpu,
                "CPU (Eigen): auto, because OpenGL here is" + on.substr(3) +
                    ", a software renderer on the same cores, where the CPU path is faster (--backend gpu forces the "
                    "shaders)",
                "auto: " + first_word + " is a software renderer"};
      if (!gpu_available)
        return {Backend::Cpu, "CPU (Eigen): auto, no GPU compute path: " + why_not, "auto: no GPU compute path"};
      return {Backend::Gpu, "GPU compute shaders: auto, a hardware renderer" + on, "auto: a hardware GPU"};
  }
  return {Backend::Cpu, "CPU (Eigen)", ""};
}

}  // namespace poslab

// libFuzzer target: NumPy .npy (versions 1–3, float16/32/64).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/formats/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto m = poslab::parse_npy_matrix(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (m && m->size() > 0) (void)m->sum();
  return 0;
}

// libFuzzer target: safetensors. Every tensor the header admits is read at its first and last row.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/formats/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto file = poslab::SafetensorsFile::parse(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!file) return 0;
  for (const poslab::TensorInfo& t : file->tensors()) {
    if (t.shape.size() != 2 || !poslab::safetensors_dtype_supported(t.dtype) || t.shape[0] <= 0) continue;
    const std::int64_t ids[] = {0, t.shape[0] - 1, t.shape[0]};  // the last one is out of range
    (void)file->rows(t, ids);
    (void)file->rows(t, std::span<const std::int64_t>(ids, 2));
  }
  (void)file->embedding_tensor("");
  return 0;
}

// libFuzzer target: word2vec binary.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/formats/formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto table = poslab::parse_word2vec_binary(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (table && table->size() > 0) (void)table->row(0);
  return 0;
}

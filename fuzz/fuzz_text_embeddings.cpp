// libFuzzer target: GloVe / word2vec text. Any bytes give a table or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/formats/embeddings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto table = poslab::parse_text_embeddings(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (table && table->size() > 0) (void)table->row(table->size() - 1);
  return 0;
}

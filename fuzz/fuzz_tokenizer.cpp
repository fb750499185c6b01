// libFuzzer target: tokenizer.json, then encoding a fixed sentence and the input itself.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/formats/bpe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto tokenizer = poslab::BpeTokenizer::parse(text, "", "fuzz");
  if (!tokenizer) return 0;
  if (auto ids = tokenizer->encode("The dog chased another dog 🐶 12345")) (void)tokenizer->token_text(ids->empty() ? 0 : ids->back());
  (void)tokenizer->encode(text.substr(0, 256));
  return 0;
}

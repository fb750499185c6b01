// libFuzzer target: tokenizer.json, then encoding a fixed sentence and the input itself, and
// reading the tokens back as text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tokenizer/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto tokenizer = poslab::BpeTokenizer::parse(text, "", "fuzz");
  if (!tokenizer) return 0;
  // Encoded, then read back as text (the display joins byte tokens across a sentence); combining
  // marks, full-width digits and Chinese characters for the normalizers (BERT's, SentencePiece's
  // charsmap), a mask token and a sentinel for the added tokens, a long word for WordPiece.
  if (auto ids = tokenizer->encode("The dog chased another dog 🐶 12345 cafe\u0301 \uff11 中文 a\u0301\u0302\u0303 "
                                   "Paris is the [MASK] of <extra_id_0> </s> aaaaaaaaaaaaaaaaaaaaaaaaaaa"))
    (void)tokenizer->token_texts(*ids);
  (void)tokenizer->mask_token_id();
  if (auto ids = tokenizer->encode(text.substr(0, 256))) (void)tokenizer->token_texts(*ids);
  (void)tokenizer->token_text(tokenizer->vocab_size() - 1);
  return 0;
}

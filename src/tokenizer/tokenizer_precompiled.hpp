#pragma once
// tokenizer.json's "Precompiled" normalizer: SentencePiece's precompiled_charsmap (T5, Flan-T5,
// XLM-R, ALBERT), a base64 blob that SentencePiece's trainer compiles from a normalization rule
// such as nmt_nfkc. Its layout, as SentencePiece writes it:
//   a little-endian uint32: the size in bytes of the trie that follows;
//   the trie: a darts-clone double array of little-endian uint32 units, keyed by UTF-8 bytes,
//     whose values are offsets into the strings below;
//   the normalized strings, each ended by a zero byte.
// It is applied as Hugging Face's tokenizers applies it (not quite as SentencePiece does): each
// extended grapheme cluster shorter than 6 bytes is replaced whole when the trie has an entry for
// a prefix of it (the shortest such prefix gives the replacement); otherwise each character alone
// is replaced when the trie has one for a prefix of it, or kept.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace poslab {

// Standard base64 (RFC 4648, with or without "=" padding); an error names `what`.
Result<std::string> decode_base64(std::string_view text, const std::string& what);

class PrecompiledCharsmap {
 public:
  // `base64` is the precompiled_charsmap value; `what` prefixes messages.
  static Result<PrecompiledCharsmap> parse(std::string_view base64, const std::string& what);
  // From the decoded bytes.
  static Result<PrecompiledCharsmap> from_bytes(std::string_view bytes, const std::string& what);

  // `text` must be valid UTF-8; so is the result. Nothing when the result would pass `limit` bytes
  // (a charsmap may map one character to a long string): it stops there, never builds more.
  std::optional<std::string> normalize(std::string_view text, std::size_t limit) const;
  std::string normalize(std::string_view text) const { return *normalize(text, SIZE_MAX); }
  // The replacement the trie gives `chunk` (its shortest prefix with an entry), if any.
  std::optional<std::string_view> transform(std::string_view chunk) const;
  bool empty() const { return units_.empty(); }

 private:
  std::vector<std::uint32_t> units_;  // the double array
  std::string normalized_;            // the replacements, zero-separated
};

// The extended grapheme clusters of valid UTF-8 `text` (through ICU), as [begin, end) offsets.
std::vector<std::pair<std::size_t, std::size_t>> grapheme_clusters(std::string_view text);

}  // namespace poslab

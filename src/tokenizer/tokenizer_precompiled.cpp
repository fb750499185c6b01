#include "tokenizer/tokenizer_precompiled.hpp"

#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include <array>
#include <memory>

#include "tokenizer/tokenizer_text.hpp"

namespace poslab {

namespace {

// darts-clone's unit: bit 8 says a value hangs below, bits 10.. are the offset to the children
// (shifted left 8 more when bit 9 is set), the low byte is the label; a value unit holds the value
// in its low 31 bits and has bit 31 set, so it never matches a label.
bool has_leaf(std::uint32_t unit) { return ((unit >> 8) & 1u) != 0; }
std::uint32_t value_of(std::uint32_t unit) { return unit & 0x7FFFFFFFu; }
std::uint32_t label_of(std::uint32_t unit) { return unit & (0x80000000u | 0xFFu); }
std::uint32_t offset_of(std::uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

int base64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

Result<std::string> decode_base64(std::string_view text, const std::string& what) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return Error{what + ": not valid base64 (its length is wrong)"};
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const int d = base64_digit(c);
    if (d < 0) return Error{what + ": not valid base64 (a character outside its alphabet)"};
    bits = (bits << 6) | static_cast<std::uint32_t>(d);
    if (++count == 4) {
      out += static_cast<char>((bits >> 16) & 0xFF), out += static_cast<char>((bits >> 8) & 0xFF),
          out += static_cast<char>(bits & 0xFF);
      bits = 0, count = 0;
    }
  }
  if (count == 2) out += static_cast<char>((bits >> 4) & 0xFF);
  if (count == 3) out += static_cast<char>((bits >> 10) & 0xFF), out += static_cast<char>((bits >> 2) & 0xFF);
  return out;
}

Result<PrecompiledCharsmap> PrecompiledCharsmap::parse(std::string_view base64, const std::string& what) {
  auto bytes = decode_base64(base64, what + "'s precompiled_charsmap");
  if (!bytes) return Error{bytes.error()};
  return from_bytes(*bytes, what);
}

Result<PrecompiledCharsmap> PrecompiledCharsmap::from_bytes(std::string_view bytes, const std::string& what) {
  PrecompiledCharsmap m;
  if (bytes.empty()) return m;  // an empty charsmap normalizes nothing (SentencePiece's "identity" rule)
  if (bytes.size() < 4) return Error{what + ": the precompiled_charsmap is shorter than its 4-byte header"};
  const auto byte = [&bytes](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  const std::uint32_t trie_size = byte(0) | byte(1) << 8 | byte(2) << 16 | byte(3) << 24;
  if (trie_size % 4 != 0 || trie_size > bytes.size() - 4)
    return Error{what + ": the precompiled_charsmap's trie size " + std::to_string(trie_size) + " does not fit its " +
                 std::to_string(bytes.size()) + " bytes"};
  m.units_.resize(trie_size / 4);
  for (std::size_t k = 0; k < m.units_.size(); ++k) {
    const std::size_t at = 4 + 4 * k;
    m.units_[k] = byte(at) | byte(at + 1) << 8 | byte(at + 2) << 16 | byte(at + 3) << 24;
  }
  m.normalized_ = std::string(bytes.substr(4 + trie_size));
  if (!valid_utf8(m.normalized_))
    return Error{what + ": the precompiled_charsmap's normalized strings are not valid UTF-8"};
  return m;
}

std::optional<std::string_view> PrecompiledCharsmap::transform(std::string_view chunk) const {
  if (units_.empty()) return std::nullopt;
  // A common-prefix search that stops at the first (shortest) key found. Every position comes from
  // the file, so each is checked before it is read.
  std::size_t pos = offset_of(units_[0]);
  for (char ch : chunk) {
    const auto c = static_cast<unsigned char>(ch);
    pos ^= c;
    if (pos >= units_.size()) return std::nullopt;
    const std::uint32_t unit = units_[pos];
    if (label_of(unit) != c) return std::nullopt;
    pos ^= offset_of(unit);
    if (!has_leaf(unit)) continue;
    if (pos >= units_.size()) return std::nullopt;
    const std::size_t begin = value_of(units_[pos]);
    if (begin >= normalized_.size()) return std::nullopt;
    const std::size_t end = normalized_.find('\0', begin);
    const std::string_view replacement =
        std::string_view(normalized_).substr(begin, end == std::string::npos ? end : end - begin);
    // An offset into the middle of a character would break the text: no replacement then.
    if (!valid_utf8(replacement)) return std::nullopt;
    return replacement;
  }
  return std::nullopt;
}

std::optional<std::string> PrecompiledCharsmap::normalize(std::string_view text, std::size_t limit) const {
  std::string out;
  out.reserve(text.size());
  for (const auto& [begin, end] : grapheme_clusters(text)) {
    if (out.size() > limit) return std::nullopt;
    const std::string_view grapheme = text.substr(begin, end - begin);
    if (grapheme.size() < 6)
      if (const auto replaced = transform(grapheme)) {
        out += *replaced;
        continue;
      }
    for (std::size_t i = 0; i < grapheme.size();) {
      const std::size_t n =
          std::min(utf8_sequence_length(static_cast<unsigned char>(grapheme[i])), grapheme.size() - i);
      const std::string_view character = grapheme.substr(i, n);
      const auto replaced = transform(character);
      out += replaced ? *replaced : character;
      if (out.size() > limit) return std::nullopt;
      i += n;
    }
  }
  if (out.size() > limit) return std::nullopt;
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> grapheme_clusters(std::string_view text) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  if (text.empty()) return out;
  UErrorCode error = U_ZERO_ERROR;
  std::unique_ptr<UText, decltype(&utext_close)> utext(
      utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &error), &utext_close);
  std::unique_ptr<UBreakIterator, decltype(&ubrk_close)> breaks(ubrk_open(UBRK_CHARACTER, "", nullptr, 0, &error),
                                                                &ubrk_close);
  if (U_SUCCESS(error)) ubrk_setUText(breaks.get(), utext.get(), &error);
  if (U_FAILURE(error)) {  // no break data: every character its own cluster
    for (std::size_t i = 0; i < text.size();) {
      const std::size_t n = std::min(utf8_sequence_length(static_cast<unsigned char>(text[i])), text.size() - i);
      out.emplace_back(i, i + n);
      i += n;
    }
    return out;
  }
  std::int32_t begin = ubrk_first(breaks.get());
  for (std::int32_t end = ubrk_next(breaks.get()); end != UBRK_DONE; begin = end, end = ubrk_next(breaks.get()))
    out.emplace_back(static_cast<std::size_t>(begin), static_cast<std::size_t>(end));
  return out;
}

}  // namespace poslab

#include "core/encodings/streaming.hpp"

#include <charconv>

namespace poslab {

namespace {

// A whole number from `lo` to 2^24 (a length in tokens), or nothing.
bool whole_tokens(std::string_view text, int lo, int& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= lo && out <= (1 << 24);
}

}  // namespace

Result<Streaming> parse_streaming(std::string_view text) {
  if (text == "none") return Streaming{};
  const auto comma = text.find(',');
  Streaming s;
  if (comma == std::string_view::npos || !whole_tokens(text.substr(0, comma), 0, s.sink) || !whole_tokens(text.substr(comma + 1), 1, s.window))
    return Error{"--streaming takes K,W (the first K tokens, K ≥ 0, and the last W, W ≥ 1, e.g. 4,256) or none, not \"" + std::string(text) + "\""};
  return s;
}

std::string to_string(const Streaming& s) { return s.on() ? std::to_string(s.sink) + "," + std::to_string(s.window) : "none"; }

}  // namespace poslab

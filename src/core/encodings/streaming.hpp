#pragma once
// StreamingLLM's attention (Xiao et al. 2023, "Efficient Streaming Language Models with Attention
// Sinks"): every query sees the first K tokens (the sinks) and the W tokens ending at itself, and
// nothing between — the cache a streaming model keeps. `--streaming K,W` puts it on every layer
// of a model folder.
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace poslab {

struct Streaming {
  int sink = 0, window = 0;  // window 0: no streaming
  bool on() const { return window > 0; }
  bool operator==(const Streaming&) const = default;
};

// Whether key j lies between query i's sink tokens and its window.
constexpr bool outside_stream(int i, int j, const Streaming& s) { return s.window > 0 && j >= s.sink && i - j >= s.window; }

// "K,W" (K ≥ 0 sink tokens, W ≥ 1 window) or "none".
Result<Streaming> parse_streaming(std::string_view text);
std::string to_string(const Streaming& s);  // "4,256", "none"

}  // namespace poslab

#include "core/encodings/mrope.hpp"

#include <algorithm>
#include <charconv>

namespace poslab {

std::vector<MropeAxis> mrope_pair_axes(const std::vector<int>& section, bool interleaved) {
  int pairs = 0;
  for (int n : section) pairs += n;
  std::vector<MropeAxis> axes(static_cast<std::size_t>(pairs), MropeAxis::T);
  if (section.size() != 3) return axes;
  if (!interleaved) {
    // Sections in order: t's pairs, then h's, then w's (Qwen2-VL's cat of the split chunks).
    for (int i = section[0]; i < pairs; ++i) axes[static_cast<std::size_t>(i)] = i < section[0] + section[1] ? MropeAxis::H : MropeAxis::W;
    return axes;
  }
  // Qwen3-VL's apply_interleaved_mrope: t everywhere, then pairs 1, 4, 7, … below 3·h's count
  // read h and pairs 2, 5, 8, … below 3·w's count read w.
  for (int i = 0; i < pairs; ++i) {
    if (i % 3 == 1 && i < 3 * section[1]) axes[static_cast<std::size_t>(i)] = MropeAxis::H;
    if (i % 3 == 2 && i < 3 * section[2]) axes[static_cast<std::size_t>(i)] = MropeAxis::W;
  }
  return axes;
}

namespace {

Result<int> whole(std::string_view s, std::string_view what) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v < 1 || v > 4096)
    return Error{"--layout: " + std::string(what) + " must be a whole number from 1 to 4096, not \"" + std::string(s) + "\""};
  return v;
}

}  // namespace

Result<std::vector<MropeSegment>> parse_mrope_layout(std::string_view text, int spatial_merge) {
  std::vector<MropeSegment> out;
  long long tokens = 0;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t colon = item.find(':');
    const std::string_view kind = item.substr(0, colon), size = colon == std::string_view::npos ? "" : item.substr(colon + 1);
    MropeSegment s;
    if (kind == "text") {
      auto n = whole(size, "a text's token count");
      if (!n) return Error{n.error()};
      s.length = *n;
      tokens += *n;
    } else if (kind == "image") {
      const std::size_t x = size.find('x');
      auto h = whole(size.substr(0, x), "an image's patch rows");
      auto w = whole(x == std::string_view::npos ? "" : size.substr(x + 1), "an image's patch columns");
      if (!h) return Error{h.error()};
      if (!w) return Error{w.error()};
      if (*h % spatial_merge || *w % spatial_merge)
        return Error{"--layout: an image's grid (" + std::to_string(*h) + "x" + std::to_string(*w) + ") must be a multiple of the spatial merge " +
                     std::to_string(spatial_merge) + " both ways"};
      s.image = true;
      s.grid_h = *h;
      s.grid_w = *w;
      tokens += static_cast<long long>(*h / spatial_merge) * (*w / spatial_merge);
    } else {
      return Error{"--layout: \"" + std::string(item) + "\" is not text:N or image:HxW (e.g. text:5,image:4x6,text:3)"};
    }
    if (tokens > 65536) return Error{"--layout: more than 65536 tokens"};
    out.push_back(s);
  }
  if (out.empty()) return Error{"--layout is empty: give runs like text:5,image:4x6,text:3"};
  return out;
}

std::vector<MropeToken> mrope_position_ids(const std::vector<MropeSegment>& layout, int spatial_merge) {
  std::vector<MropeToken> ids;
  int next = 0;  // the largest id so far + 1
  for (const MropeSegment& s : layout) {
    if (!s.image) {
      for (int i = 0; i < s.length; ++i) ids.push_back({false, next + i, next + i, next + i});
      next += s.length;
      continue;
    }
    const int rows = s.grid_h / spatial_merge, cols = s.grid_w / spatial_merge;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) ids.push_back({true, next, next + r, next + c});
    next += std::max(rows, cols);
  }
  return ids;
}

}  // namespace poslab

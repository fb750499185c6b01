#include "plot/colormap.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace poslab::plot {

namespace {

constexpr Color hex(unsigned v) {
  return {static_cast<float>((v >> 16) & 0xFF) / 255.0f, static_cast<float>((v >> 8) & 0xFF) / 255.0f,
          static_cast<float>(v & 0xFF) / 255.0f, 1.0f};
}

// Evenly spaced key colours of each map; between them we interpolate linearly.
constexpr std::array kViridis = {hex(0x440154), hex(0x482878), hex(0x3E4989), hex(0x31688E), hex(0x26828E),
                                 hex(0x1F9E89), hex(0x35B779), hex(0x6ECE58), hex(0xB5DE2B), hex(0xFDE725)};
// ColorBrewer RdBu, reversed so that negative is blue and positive is red.
constexpr std::array kDiverging = {hex(0x053061), hex(0x2166AC), hex(0x4393C3), hex(0x92C5DE),
                                   hex(0xD1E5F0), hex(0xF7F7F7), hex(0xFDDBC7), hex(0xF4A582),
                                   hex(0xD6604D), hex(0xB2182B), hex(0x67001F)};

template <std::size_t N>
Color interpolate(const std::array<Color, N>& keys, float t) {
  if (!std::isfinite(t)) t = 0.0f;
  t = std::clamp(t, 0.0f, 1.0f) * static_cast<float>(N - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(t), N - 2);
  const float f = t - static_cast<float>(i);
  const Color& a = keys[i];
  const Color& b = keys[i + 1];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f, 1.0f};
}

}  // namespace

Color sample(Colormap map, float t) {
  return map == Colormap::Viridis ? interpolate(kViridis, t) : interpolate(kDiverging, t);
}

Color lut_color(Colormap map, float t) {
  if (!std::isfinite(t)) t = 0.0f;
  return sample(map, std::round(std::clamp(t, 0.0f, 1.0f) * 255.0f) / 255.0f);
}

std::vector<float> colormap_lut(Colormap map) {
  std::vector<float> lut;
  lut.reserve(256 * 4);
  for (int k = 0; k < 256; ++k) {
    const Color c = sample(map, static_cast<float>(k) / 255.0f);
    lut.insert(lut.end(), {c.r, c.g, c.b, c.a});
  }
  return lut;
}

}  // namespace poslab::plot

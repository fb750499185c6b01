#pragma once
// Figures to pixels and files: the one path behind the GUI's Export button and `poslab export`.
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "plot/figure.hpp"

namespace poslab::plot {

struct RgbaImage {
  int width = 0, height = 0;
  std::string rgba;  // top row first
};

// Renders `figure` offscreen at `scale` (1 = logical pixels). Needs a current OpenGL context;
// it uses an ImGui context of its own and leaves the caller's current one as it was.
Result<RgbaImage> render_figure(const Figure& figure, float scale);

std::string encode_png(const RgbaImage& image);
Result<RgbaImage> decode_png(std::string_view bytes);

}  // namespace poslab::plot

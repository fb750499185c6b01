#include "plot/render.hpp"

#include <stb_image.h>
#include <stb_image_write.h>

#include "plot/figure_renderer.hpp"

namespace poslab::plot {

Result<RgbaImage> render_figure(const Figure& figure, float scale) {
  // A renderer made for this one figure: its own ImGui context and fonts, then gone.
  auto renderer = FigureRenderer::create(scale);
  if (!renderer) return Error{renderer.error()};
  return (*renderer)->render(figure);
}

std::string encode_png(const RgbaImage& image) {
  std::string out;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  stbi_write_png_to_func(append, &out, image.width, image.height, 4, image.rgba.data(), image.width * 4);
  return out;
}

Result<RgbaImage> decode_png(std::string_view bytes) {
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()),
                                                static_cast<int>(bytes.size()), &w, &h, &channels, 4);
  if (!pixels) return Error{std::string("not a readable PNG: ") + stbi_failure_reason()};
  RgbaImage image{w, h, std::string(reinterpret_cast<const char*>(pixels), static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4)};
  stbi_image_free(pixels);
  return image;
}

}  // namespace poslab::plot

// Measures things in a PNG for the shell tests (the screenshots of the HiDPI test, the installed
// icons), through the same decoder PosLab's own tests use:
//   png_probe size FILE                      → "W H"
//   png_probe pixel FILE X Y                 → "R G B"
//   png_probe ink FILE X0 Y0 X1 Y1 dark|light → "TOP BOTTOM" of the rows in the box holding ink
//     (dark: text on a white figure; light: the interface's text on its dark panels), or "none"
//   png_probe crop-equal FILE OTHER X0 Y0 X1 Y1 → exit 0 when the box has the same pixels in both
//   png_probe colours FILE X0 Y0 X1 Y1       → how many different colours the box holds
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/files.hpp"
#include "plot/render.hpp"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "png_probe: %s\n", message.c_str());
  return 2;
}

struct Rgb {
  int r, g, b;
};

Rgb at(const poslab::plot::RgbaImage& image, int x, int y) {
  const auto i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(image.width) + static_cast<std::size_t>(x)) * 4;
  auto channel = [&](std::size_t k) { return static_cast<int>(static_cast<unsigned char>(image.rgba[i + k])); };
  return {channel(0), channel(1), channel(2)};
}

// Dark ink: a glyph's core on white (anti-aliased edges are lighter and do not count). Light ink:
// a glyph's core in the interface's white text colour.
bool is_ink(Rgb c, bool dark) { return dark ? c.r < 110 && c.g < 110 && c.b < 110 : c.r > 200 && c.g > 200 && c.b > 200; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return fail("usage: png_probe size|pixel|ink|crop-equal|colours FILE …");
  const std::string what = argv[1];
  auto bytes = poslab::read_whole_file(argv[2], poslab::kMatrixFile);
  if (!bytes) return fail(bytes.error());
  auto image = poslab::plot::decode_png(*bytes);
  if (!image) return fail(image.error());
  if (what == "size") {
    std::printf("%d %d\n", image->width, image->height);
    return 0;
  }
  if (what == "pixel" && argc == 5) {
    const int x = std::atoi(argv[3]), y = std::atoi(argv[4]);
    if (x < 0 || y < 0 || x >= image->width || y >= image->height) return fail("the pixel is outside the image");
    const Rgb c = at(*image, x, y);
    std::printf("%d %d %d\n", c.r, c.g, c.b);
    return 0;
  }
  if (what == "crop-equal" && argc == 8) {
    auto other_bytes = poslab::read_whole_file(argv[3], poslab::kMatrixFile);
    if (!other_bytes) return fail(other_bytes.error());
    auto other = poslab::plot::decode_png(*other_bytes);
    if (!other) return fail(other.error());
    const int x0 = std::max(0, std::atoi(argv[4])), y0 = std::max(0, std::atoi(argv[5]));
    const int x1 = std::min({image->width, other->width, std::atoi(argv[6])});
    const int y1 = std::min({image->height, other->height, std::atoi(argv[7])});
    if (x1 <= x0 || y1 <= y0) return fail("the box is empty");
    int differing = 0;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) {
        const Rgb a = at(*image, x, y), b = at(*other, x, y);
        differing += a.r != b.r || a.g != b.g || a.b != b.b;
      }
    std::printf("%d pixels differ\n", differing);
    return differing == 0 ? 0 : 1;
  }
  if (what == "colours" && argc == 7) {
    const int x0 = std::max(0, std::atoi(argv[3])), y0 = std::max(0, std::atoi(argv[4]));
    const int x1 = std::min(image->width, std::atoi(argv[5])), y1 = std::min(image->height, std::atoi(argv[6]));
    if (x1 <= x0 || y1 <= y0) return fail("the box is empty");
    std::vector<int> seen;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) {
        const Rgb c = at(*image, x, y);
        seen.push_back(c.r << 16 | c.g << 8 | c.b);
      }
    std::sort(seen.begin(), seen.end());
    std::printf("%td\n", std::unique(seen.begin(), seen.end()) - seen.begin());
    return 0;
  }
  if (what == "ink" && argc == 8) {
    const int x0 = std::max(0, std::atoi(argv[3])), y0 = std::max(0, std::atoi(argv[4]));
    const int x1 = std::min(image->width, std::atoi(argv[5])), y1 = std::min(image->height, std::atoi(argv[6]));
    const bool dark = std::string(argv[7]) == "dark";
    int top = -1, bottom = -1;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x)
        if (is_ink(at(*image, x, y), dark)) {
          if (top < 0) top = y;
          bottom = y;
          break;
        }
    if (top < 0) std::printf("none\n");
    else std::printf("%d %d\n", top, bottom);
    return 0;
  }
  return fail("unknown request " + what);
}

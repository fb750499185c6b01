// The heatmap's cells as an image: one texel per block of cells, each the block's largest unmasked
// value, when there are more cells than the image may have texels; the hatch where a block is all
// masked; and the unaggregated image unchanged below the limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "plot/heatmap.hpp"

using namespace poslab;
using namespace poslab::plot;

namespace {

// The texel's colour as heatmap_cells writes it for value v on [0, 1].
std::array<unsigned char, 3> expected_color(Colormap map, float v) {
  const Color c = lut_color(map, v);
  auto byte = [](float x) { return static_cast<unsigned char>(std::lround(std::clamp(x, 0.0f, 1.0f) * 255.0f)); };
  return {byte(c.r), byte(c.g), byte(c.b)};
}

std::array<unsigned char, 3> texel(const Image& img, int x, int y) {
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(img.width) + static_cast<std::size_t>(x)) * 4;
  return {img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]};
}

}  // namespace

TEST(HeatmapCells, MoreCellsThanTexelsAreBlocksByTheirMaximum) {
  // 10 × 10 cells into at most 4 texels a side: blocks of 3 × 3, an image of 4 × 4.
  Matrix values = Matrix::Constant(10, 10, 0.1f);
  values(5, 4) = 0.9f;  // one sharp cell: its block (rows 3–5, columns 3–5) must show it whole
  values(9, 0) = 0.5f;  // the last, partial block row
  HeatmapSpec spec;
  spec.values = &values;
  spec.vmin = 0.0f;
  spec.vmax = 1.0f;
  spec.max_texels = 4;
  spec.masked = [](int i, int j) { return j > i; };  // causal: blocks above the diagonal are all masked
  EXPECT_EQ(heatmap_block(spec), 3);
  const Image img = heatmap_cells(spec);
  ASSERT_EQ(img.width, 4);
  ASSERT_EQ(img.height, 4);
  EXPECT_EQ(texel(img, 1, 1), expected_color(spec.colormap, 0.9f));
  EXPECT_EQ(texel(img, 0, 3), expected_color(spec.colormap, 0.5f));
  EXPECT_EQ(texel(img, 0, 0), expected_color(spec.colormap, 0.1f));
  // Block (rows 0–2, column 9): every cell above the diagonal, so the hatch; at texel (3, 0) its
  // stripes ((x + y) mod 6 < 2 dark) are light.
  auto byte = [](float x) { return static_cast<unsigned char>(std::lround(std::clamp(x, 0.0f, 1.0f) * 255.0f)); };
  EXPECT_EQ(texel(img, 3, 0), (std::array<unsigned char, 3>{byte(kMaskLight.r), byte(kMaskLight.g), byte(kMaskLight.b)}));
  EXPECT_EQ(texel(img, 1, 0), (std::array<unsigned char, 3>{byte(kMaskDark.r), byte(kMaskDark.g), byte(kMaskDark.b)}));
}

TEST(HeatmapCells, AMaskedMaximumDoesNotShow) {
  Matrix values = Matrix::Constant(6, 6, 0.2f);
  values(0, 1) = 1.0f;  // above the diagonal: masked, must not colour its block
  HeatmapSpec spec;
  spec.values = &values;
  spec.max_texels = 3;  // blocks of 2 × 2
  spec.masked = [](int i, int j) { return j > i; };
  const Image img = heatmap_cells(spec);
  ASSERT_EQ(img.width, 3);
  EXPECT_EQ(texel(img, 0, 0), expected_color(spec.colormap, 0.2f));
}

TEST(HeatmapCells, BelowTheLimitNothingChanges) {
  Matrix values = Matrix::Random(12, 12).cwiseAbs();
  HeatmapSpec spec;
  spec.values = &values;
  const Image plain = heatmap_cells(spec);
  spec.max_texels = 12;
  EXPECT_EQ(heatmap_block(spec), 1);
  EXPECT_EQ(heatmap_cells(spec).rgba, plain.rgba);
}

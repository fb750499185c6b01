#pragma once
// Draws a Figure with Dear ImGui's draw lists: into a window on screen, or into an offscreen
// framebuffer for PNG export. Both use the same fonts and the same code, so they agree.
#include <imgui.h>

#include <memory>
#include <string>
#include <vector>

#include "gpu/gl.hpp"
#include "plot/figure.hpp"

namespace poslab::plot {

// The fonts a figure needs, baked into an ImFontAtlas at `scale` times their logical size.
struct FontSet {
  ImFont* ui = nullptr;     // 15 px: the GUI's controls
  ImFont* label = nullptr;  // 13 px: labels, ticks
  ImFont* title = nullptr;  // 16 px: titles
  float scale = 1.0f;
  std::string warning;      // set when the preferred font file was missing

  // Adds the fonts to `atlas` (which the caller then builds or hands to a renderer backend),
  // each glyph rasterised `oversample` times finer than its pixels each way. Exports keep 2 at
  // every scale (their pixels must not change); the GUI passes 1 on a HiDPI screen, where the
  // glyphs are large enough and an atlas twice as fine would take four times the memory.
  static FontSet add_to(ImFontAtlas& atlas, float scale, int oversample = 2);
  ImFont* for_size(float logical_size) const { return logical_size >= 15.5f ? title : label; }
};

// The font file figures use: DejaVu Sans from Debian's fonts-dejavu-core.
const char* figure_font_path();
// The font Japanese glyphs come from: Noto Sans CJK JP from Debian's fonts-noto-cjk.
const char* cjk_font_path();

// Adds the characters of `text` (Japanese) to the glyphs every FontSet bakes from the CJK font
// from now on: only the glyphs the interface uses, so start-up stays fast. Call it before the
// GUI builds its fonts; figure measuring picks the new glyphs up by itself.
void add_figure_glyphs(const std::string& text);

// Measures text with the figure fonts at scale 1, independent of any ImGui context, so that a
// figure has the same layout on screen, in the GUI's export and in `poslab export`.
const TextMeasure& figure_text_measure();

// Characters of the figure's text that the figure font has no glyph for (they would show as a
// replacement box), each once, in UTF-8.
std::vector<std::string> missing_glyphs(const Figure& figure);

// GL textures for a figure's images, uploaded once per image version.
class TextureCache {
 public:
  ImTextureID texture_for(int index, const Image& image);

 private:
  struct Entry {
    std::uint64_t version = 0;
    gpu::Texture2D texture;
  };
  std::vector<Entry> entries_;
};

// Draws `figure` with its top-left corner at `origin` (physical pixels), every coordinate and
// text size multiplied by `scale`. With `text_boxes`, where each of figure.texts was drawn (in
// the draw list's units, their order; rotated text as turned), for a test that checks the layout.
void draw_figure(ImDrawList* list, const Figure& figure, ImVec2 origin, float scale, const FontSet& fonts,
                 TextureCache& textures, std::vector<Box>* text_boxes = nullptr);

}  // namespace poslab::plot

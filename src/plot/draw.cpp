#include "plot/draw.hpp"

#include <imgui_internal.h>  // ImTextCharFromUtf8

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>

namespace poslab::plot {

namespace {

// The glyphs figures and the GUI use: Latin, Greek (θ, φ), sub/superscripts (ᵢ, ᵀ), arrows,
// mathematical operators (√, −, ×, ‖) and general punctuation (…, –).
const ImWchar kGlyphRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x1D00, 0x1DBF, 0x2000, 0x206F,
                                0x2070, 0x209F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0x25A0, 0x25FF, 0};

ImU32 to_u32(Color c) { return ImGui::ColorConvertFloat4ToU32(ImVec4(c.r, c.g, c.b, c.a)); }

// The extra text whose glyphs (Japanese) are merged from the CJK font, and its ranges.
struct ExtraGlyphs {
  std::string text;
  ImVector<ImWchar> ranges;  // must outlive every atlas build
  std::string font_bytes;    // the CJK font file, read once
  int version = 0;
};
ExtraGlyphs& extra_glyphs() {
  static ExtraGlyphs extra;
  return extra;
}

// Merges the glyphs of the extra text from the CJK font into the font just added.
bool merge_cjk(ImFontAtlas& atlas, float size, int oversample) {
  ExtraGlyphs& extra = extra_glyphs();
  if (extra.ranges.empty()) return true;
  if (extra.font_bytes.empty()) {
    std::ifstream in(cjk_font_path(), std::ios::binary);
    extra.font_bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (extra.font_bytes.empty()) return false;
  }
  ImFontConfig merge;
  merge.MergeMode = true;
  merge.FontNo = 0;  // Noto Sans CJK JP in the collection
  merge.OversampleH = oversample;
  merge.OversampleV = oversample;
  merge.PixelSnapH = false;
  merge.FontDataOwnedByAtlas = false;  // the bytes stay in extra_glyphs()
  // Noto's kana and kanji fill less of the em than DejaVu's Latin: a little larger, they match
  // the Latin x-height (glyphs sit on the same baseline either way).
  return atlas.AddFontFromMemoryTTF(extra.font_bytes.data(), static_cast<int>(extra.font_bytes.size()), size * 1.12f, &merge,
                                    extra.ranges.Data) != nullptr;
}

ImFont* add_font(ImFontAtlas& atlas, float size, int oversample, bool& missing) {
  ImFontConfig config;
  config.OversampleH = oversample;
  config.OversampleV = oversample;
  config.PixelSnapH = false;
  if (!missing && std::filesystem::exists(figure_font_path())) {
    if (ImFont* f = atlas.AddFontFromFileTTF(figure_font_path(), size, &config, kGlyphRanges)) {
      if (!merge_cjk(atlas, size, oversample)) missing = true;
      return f;
    }
  }
  missing = true;
  config.SizePixels = size;
  return atlas.AddFontDefault(&config);
}

class AtlasMeasure final : public TextMeasure {
 public:
  ImFont* font() const { return fonts_.label; }
  AtlasMeasure() {
    fonts_ = FontSet::add_to(atlas_, 1.0f);
    atlas_.Build();
  }
  float width(const std::string& text, float size) const override {
    ImFont* f = fonts_.for_size(size);
    return f->CalcTextSizeA(size, FLT_MAX, 0.0f, text.c_str(), text.c_str() + text.size()).x;
  }

 private:
  ImFontAtlas atlas_;
  FontSet fonts_;
};

}  // namespace

const char* figure_font_path() { return "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"; }
const char* cjk_font_path() { return "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"; }

void add_figure_glyphs(const std::string& text) {
  ExtraGlyphs& extra = extra_glyphs();
  if (extra.text.find(text) != std::string::npos) return;
  extra.text += text;
  ImFontGlyphRangesBuilder builder;
  builder.AddText(extra.text.c_str());
  extra.ranges.clear();
  builder.BuildRanges(&extra.ranges);
  ++extra.version;
}

FontSet FontSet::add_to(ImFontAtlas& atlas, float scale, int oversample) {
  FontSet set;
  bool missing = false;
  set.scale = scale;
  set.ui = add_font(atlas, 15.0f * scale, oversample, missing);
  set.label = add_font(atlas, 13.0f * scale, oversample, missing);
  set.title = add_font(atlas, 16.0f * scale, oversample, missing);
  if (missing)
    set.warning = std::string("font ") + figure_font_path() + " or " + cjk_font_path() +
                  " is missing (install fonts-dejavu-core and fonts-noto-cjk); using ImGui's built-in font";
  return set;
}

namespace {
// Rebuilt when glyphs were added; earlier atlases stay alive for anyone still holding them.
// Figures are built on worker threads too (views, animation export): the check is locked.
const AtlasMeasure& atlas_measure() {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<AtlasMeasure>> built;
  static int version = -1;
  const std::lock_guard lock(mutex);
  if (version != extra_glyphs().version) {
    built.push_back(std::make_unique<AtlasMeasure>());
    version = extra_glyphs().version;
  }
  return *built.back();
}
}  // namespace

const TextMeasure& figure_text_measure() { return atlas_measure(); }

std::vector<std::string> missing_glyphs(const Figure& figure) {
  ImFont* font = atlas_measure().font();
  std::vector<std::string> missing;
  for (const TextItem& t : figure.texts) {
    const char* p = t.text.c_str();
    const char* end = p + t.text.size();
    while (p < end) {
      unsigned int c = 0;
      const char* start = p;
      p += ImTextCharFromUtf8(&c, p, end);
      if (c < 0x20 || font->FindGlyphNoFallback(static_cast<ImWchar>(c))) continue;
      std::string ch(start, p);
      if (std::find(missing.begin(), missing.end(), ch) == missing.end()) missing.push_back(ch);
    }
  }
  return missing;
}

ImTextureID TextureCache::texture_for(int index, const Image& image) {
  if (image.texture != 0) return reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(image.texture));
  if (static_cast<std::size_t>(index) >= entries_.size()) entries_.resize(static_cast<std::size_t>(index) + 1);
  Entry& e = entries_[static_cast<std::size_t>(index)];
  if (e.version != image.version || e.texture.id() == 0) {
    e.texture.upload_rgba(image.width, image.height, image.rgba.data());
    e.version = image.version;
  }
  return reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(e.texture.id()));
}

namespace {

// Draws the text; returns the box it covers (a line's height tall, as wide as ImGui measures it).
Box draw_text(ImDrawList* list, const TextItem& t, ImVec2 origin, float scale, const FontSet& fonts) {
  ImFont* font = fonts.for_size(t.size);
  const float size = t.size * scale;
  const char* begin = t.text.c_str();
  const char* end = begin + t.text.size();
  const ImVec2 extent = font->CalcTextSizeA(size, FLT_MAX, 0.0f, begin, end);
  const ImVec2 pivot(origin.x + t.anchor.x * scale, origin.y + t.anchor.y * scale);
  // Top-left of the unrotated text, so that the anchor sits where the alignment says.
  ImVec2 pos = pivot;
  if (t.h == HAlign::Center) pos.x -= extent.x * 0.5f;
  if (t.h == HAlign::Right) pos.x -= extent.x;
  if (t.v == VAlign::Middle) pos.y -= size * 0.5f;
  if (t.v == VAlign::Bottom) pos.y -= size;
  const int first_vertex = list->VtxBuffer.Size;
  // Our own generous clip rectangle: text about to be rotated must not be culled first.
  const ImVec4 no_clip(-1e6f, -1e6f, 1e6f, 1e6f);
  font->RenderText(list, size, pos, to_u32(t.color), no_clip, begin, end);
  if (!t.vertical) return {pos.x, pos.y, pos.x + extent.x, pos.y + size};
  // A quarter turn counter-clockwise about the anchor: (dx, dy) → (dy, −dx).
  for (int i = first_vertex; i < list->VtxBuffer.Size; ++i) {
    ImVec2& p = list->VtxBuffer[i].pos;
    const float dx = p.x - pivot.x, dy = p.y - pivot.y;
    p = ImVec2(pivot.x + dy, pivot.y - dx);
  }
  return {pivot.x + (pos.y - pivot.y), pivot.y - (pos.x + extent.x - pivot.x), pivot.x + (pos.y + size - pivot.y),
          pivot.y - (pos.x - pivot.x)};
}

// ImGui joins thick polyline segments with unlimited miters, which shoot spikes out of sharp
// turns (a zig-zag of steps, a path that doubles back). Break the line at turns sharper than
// about 60° and round the joint with a dot instead, as SVG's miter limit would.
void draw_polyline(ImDrawList* list, const std::vector<ImVec2>& points, ImU32 color, float width) {
  const auto n = points.size();
  std::size_t start = 0;
  for (std::size_t k = 1; k + 1 < n; ++k) {
    const ImVec2 a = points[k - 1], b = points[k], c = points[k + 1];
    const float ux = b.x - a.x, uy = b.y - a.y, vx = c.x - b.x, vy = c.y - b.y;
    const float lu = std::hypot(ux, uy), lv = std::hypot(vx, vy);
    if (lu < 1e-4f || lv < 1e-4f || (ux * vx + uy * vy) / (lu * lv) > 0.5f) continue;  // gentle turn
    list->AddPolyline(points.data() + start, static_cast<int>(k - start + 1), color, 0, width);
    if (width > 1.5f) list->AddCircleFilled(b, width * 0.5f, color, 8);
    start = k;
  }
  if (n - start >= 2) list->AddPolyline(points.data() + start, static_cast<int>(n - start), color, 0, width);
}

}  // namespace

void draw_figure(ImDrawList* list, const Figure& figure, ImVec2 origin, float scale, const FontSet& fonts,
                 TextureCache& textures, std::vector<Box>* text_boxes) {
  if (text_boxes) text_boxes->assign(figure.texts.size(), Box{});
  auto at = [&](Point p) { return ImVec2(origin.x + p.x * scale, origin.y + p.y * scale); };
  list->AddRectFilled(origin, ImVec2(origin.x + figure.width * scale, origin.y + figure.height * scale),
                      to_u32(figure.background));
  for (const ItemRef& ref : figure.order) {
    const auto i = static_cast<std::size_t>(ref.index);
    switch (ref.kind) {
      case ItemKind::Rect: {
        const RectItem& r = figure.rects[i];
        if (r.fill.a > 0) list->AddRectFilled(at({r.box.x0, r.box.y0}), at({r.box.x1, r.box.y1}), to_u32(r.fill));
        if (r.stroke.a > 0)
          list->AddRect(at({r.box.x0, r.box.y0}), at({r.box.x1, r.box.y1}), to_u32(r.stroke), 0.0f, 0,
                        r.stroke_width * scale);
        break;
      }
      case ItemKind::Line: {
        const LineItem& l = figure.lines[i];
        std::vector<ImVec2> points;
        for (const Point& p : l.points) points.push_back(at(p));
        draw_polyline(list, points, to_u32(l.color), l.width * scale);
        break;
      }
      case ItemKind::Text: {
        const Box box = draw_text(list, figure.texts[i], origin, scale, fonts);
        if (text_boxes) (*text_boxes)[i] = box;
        break;
      }
      case ItemKind::Image: {
        const ImageItem& im = figure.image_items[i];
        const Image& image = figure.images[static_cast<std::size_t>(im.image)];
        list->AddImage(textures.texture_for(im.image, image), at({im.box.x0, im.box.y0}), at({im.box.x1, im.box.y1}));
        break;
      }
    }
  }
}

}  // namespace poslab::plot

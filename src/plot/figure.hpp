#pragma once
// A plot described once, as a list of primitives in logical pixels (scale 1). The same Figure is
// drawn on screen, rendered offscreen to PNG at any scale, and (later) written as SVG.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace poslab::plot {

struct Color {
  float r = 0, g = 0, b = 0, a = 1;
};

struct Point {
  float x = 0, y = 0;
};

struct Box {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool contains(Point p) const { return p.x >= x0 && p.x < x1 && p.y >= y0 && p.y < y1; }
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
};

// An RGBA8 picture, top row first; `version` changes whenever the pixels do, so a renderer can
// keep its texture until then. With `texture` set, the pixels already live in that GL texture
// (painted there by the GPU) and `rgba` is empty.
struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgba;
  std::uint64_t version = 0;
  std::uint32_t texture = 0;
};

enum class HAlign { Left, Center, Right };
enum class VAlign { Top, Middle, Bottom };

struct RectItem {
  Box box;
  Color fill{0, 0, 0, 0};
  Color stroke{0, 0, 0, 0};
  float stroke_width = 1.0f;
};
struct LineItem {
  std::vector<Point> points;
  Color color;
  float width = 1.0f;
};
struct TextItem {
  Point anchor;  // the point the alignment refers to; rotation turns about it
  std::string text;
  float size = 13.0f;
  Color color;
  HAlign h = HAlign::Left;
  VAlign v = VAlign::Top;
  bool vertical = false;  // rotated 90° counter-clockwise: reads bottom to top
  // What the text is, for a test that checks the layout (the GUI's --probe): "title", "subtitle",
  // "caption", "x label", "y label", "x tick", "y tick", "legend"; empty for other words. A literal.
  std::string_view role;
  int panel = -1;  // the placed figure it came from (Figure::panels), or -1: this figure's own
};
struct ImageItem {
  Box box;
  int image = 0;  // index into Figure::images
};

// The figure keeps each kind of item in its own list and the drawing order separately (a
// vector of std::variant trips a false -Wmaybe-uninitialized in GCC 12).
enum class ItemKind { Rect, Line, Text, Image };
struct ItemRef {
  ItemKind kind;
  int index;
};

// A figure placed into another one (Figure::place), remembered so that a test can check that the
// placed figures' text stays out of each other's way: its bounds and its plotting areas.
struct Panel {
  Box bounds;
  std::vector<Box> areas;
};

struct Figure {
  float width = 0, height = 0;
  Color background{1, 1, 1, 1};
  std::vector<ItemRef> order;  // drawing order, first drawn first
  std::vector<RectItem> rects;
  std::vector<LineItem> lines;
  std::vector<TextItem> texts;
  std::vector<ImageItem> image_items;
  std::vector<Image> images;
  std::vector<Box> areas;     // this figure's own plotting areas (a plot's axes box, a heatmap's grid)
  std::vector<Panel> panels;  // the figures placed into it, in the order placed

  void rect(Box b, Color fill, Color stroke = {0, 0, 0, 0}, float stroke_width = 1.0f) {
    push(ItemKind::Rect, rects, RectItem{b, fill, stroke, stroke_width});
  }
  void line(Point a, Point b, Color c, float w = 1.0f) { polyline({a, b}, c, w); }
  void polyline(std::vector<Point> points, Color c, float w = 1.0f) {
    push(ItemKind::Line, lines, LineItem{std::move(points), c, w});
  }
  // The text added, so that its role can be set: fig.text(…).role = "x tick".
  TextItem& text(Point at, std::string s, float size, Color c, HAlign h = HAlign::Left,
                 VAlign v = VAlign::Top, bool vertical = false) {
    push(ItemKind::Text, texts, TextItem{at, std::move(s), size, c, h, v, vertical, {}, -1});
    return texts.back();
  }
  int add_image(Image img) {
    images.push_back(std::move(img));
    return static_cast<int>(images.size()) - 1;
  }
  void image(Box b, int index) { push(ItemKind::Image, image_items, ImageItem{b, index}); }

  // Places `other` to the right of everything so far (tops aligned) and grows to hold it.
  void append_right(const Figure& other) {
    place(other, {width, 0});
    width += other.width;
    height = height > other.height ? height : other.height;
  }
  // Places `other` below everything so far (left edges aligned) and grows to hold it.
  void append_below(const Figure& other) {
    place(other, {0, height});
    height += other.height;
    width = width > other.width ? width : other.width;
  }

  // Draws `other` into this figure with its top-left corner at `at` (figures side by side). A
  // figure with no panels of its own becomes one panel; one made of panels brings them along (its
  // own text and areas, if any, become this figure's own).
  void place(const Figure& other, Point at) {
    const int first_image = static_cast<int>(images.size());
    images.insert(images.end(), other.images.begin(), other.images.end());
    auto moved = [at](Box b) { return Box{b.x0 + at.x, b.y0 + at.y, b.x1 + at.x, b.y1 + at.y}; };
    const int first_panel = static_cast<int>(panels.size());
    if (other.panels.empty()) {
      panels.push_back({moved({0, 0, other.width, other.height}), {}});
      for (const Box& b : other.areas) panels.back().areas.push_back(moved(b));
    } else {
      for (const Panel& p : other.panels) {
        panels.push_back({moved(p.bounds), {}});
        for (const Box& b : p.areas) panels.back().areas.push_back(moved(b));
      }
      for (const Box& b : other.areas) areas.push_back(moved(b));
    }
    auto panel_of = [&](int inner) {
      if (other.panels.empty()) return first_panel;
      return inner < 0 ? -1 : first_panel + inner;
    };
    for (const ItemRef& ref : other.order) {
      const auto i = static_cast<std::size_t>(ref.index);
      switch (ref.kind) {
        case ItemKind::Rect: {
          RectItem r = other.rects[i];
          r.box = moved(r.box);
          push(ItemKind::Rect, rects, r);
          break;
        }
        case ItemKind::Line: {
          LineItem l = other.lines[i];
          for (Point& p : l.points) p = {p.x + at.x, p.y + at.y};
          push(ItemKind::Line, lines, l);
          break;
        }
        case ItemKind::Text: {
          TextItem t = other.texts[i];
          t.anchor = {t.anchor.x + at.x, t.anchor.y + at.y};
          t.panel = panel_of(t.panel);
          push(ItemKind::Text, texts, t);
          break;
        }
        case ItemKind::Image: {
          ImageItem im = other.image_items[i];
          im.box = moved(im.box);
          im.image += first_image;
          push(ItemKind::Image, image_items, im);
          break;
        }
      }
    }
  }

 private:
  template <typename T>
  void push(ItemKind kind, std::vector<T>& list, T item) {
    order.push_back({kind, static_cast<int>(list.size())});
    list.push_back(std::move(item));
  }
};

// Measures text in logical pixels at a given font size: width (height is the size itself).
class TextMeasure {
 public:
  virtual ~TextMeasure() = default;
  virtual float width(const std::string& text, float size) const = 0;
};

}  // namespace poslab::plot

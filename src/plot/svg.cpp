#include "plot/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "plot/draw.hpp"
#include "plot/render.hpp"

namespace poslab::plot {

namespace {

std::string colour(Color c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(std::lround(c.r * 255)),
                static_cast<int>(std::lround(c.g * 255)), static_cast<int>(std::lround(c.b * 255)));
  return buf;
}

std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
  return buf;
}

std::string escape_xml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string base64(const std::string& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += {table[(v >> 18) & 63], table[(v >> 12) & 63], table[(v >> 6) & 63], table[v & 63]};
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += {table[(v >> 18) & 63], table[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += {table[(v >> 18) & 63], table[(v >> 12) & 63], table[(v >> 6) & 63], '='};
  }
  return out;
}

// Nearest-neighbour enlargement, so that a viewer which smooths images (many ignore
// image-rendering) blurs only the last pixel of each cell, not the whole cell.
RgbaImage enlarged(const Image& image, float box_width, float box_height) {
  const int k = std::clamp(static_cast<int>(std::ceil(std::max(box_width / static_cast<float>(image.width),
                                                             box_height / static_cast<float>(image.height)))),
                           1, std::max(1, 4096 / std::max(image.width, image.height)));
  RgbaImage out{image.width * k, image.height * k, {}};
  out.rgba.resize(static_cast<std::size_t>(out.width) * static_cast<std::size_t>(out.height) * 4);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x)
      for (int c = 0; c < 4; ++c)
        out.rgba[(static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + static_cast<std::size_t>(x)) * 4 +
                 static_cast<std::size_t>(c)] =
            static_cast<char>(image.rgba[(static_cast<std::size_t>(y / k) * static_cast<std::size_t>(image.width) +
                                          static_cast<std::size_t>(x / k)) * 4 + static_cast<std::size_t>(c)]);
  return out;
}

void text_element(std::ostringstream& out, const TextItem& t) {
  // SVG places text by its baseline; shift by the font's ascent for top and middle alignment.
  float y = t.anchor.y;
  if (t.v == VAlign::Top) y += t.size * 0.80f;
  if (t.v == VAlign::Middle) y += t.size * 0.35f;
  if (t.v == VAlign::Bottom) y -= t.size * 0.20f;
  const char* anchor = t.h == HAlign::Left ? "start" : t.h == HAlign::Center ? "middle" : "end";
  out << "<text x=\"" << num(t.anchor.x) << "\" y=\"" << num(y) << "\" font-size=\"" << num(t.size)
      << "\" text-anchor=\"" << anchor << "\" fill=\"" << colour(t.color) << "\"";
  if (t.vertical) out << " transform=\"rotate(-90 " << num(t.anchor.x) << " " << num(t.anchor.y) << ")\"";
  out << ">" << escape_xml(t.text) << "</text>\n";
}

}  // namespace

std::string render_svg(const Figure& figure) {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\""
      << num(figure.width) << "\" height=\"" << num(figure.height) << "\" viewBox=\"0 0 " << num(figure.width) << " "
      << num(figure.height) << "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"" << colour(figure.background) << "\"/>\n";
  for (const ItemRef& ref : figure.order) {
    const auto i = static_cast<std::size_t>(ref.index);
    switch (ref.kind) {
      case ItemKind::Rect: {
        const RectItem& r = figure.rects[i];
        out << "<rect x=\"" << num(r.box.x0) << "\" y=\"" << num(r.box.y0) << "\" width=\"" << num(r.box.width())
            << "\" height=\"" << num(r.box.height()) << "\" fill=\"" << (r.fill.a > 0 ? colour(r.fill) : "none") << "\"";
        if (r.stroke.a > 0) out << " stroke=\"" << colour(r.stroke) << "\" stroke-width=\"" << num(r.stroke_width) << "\"";
        out << "/>\n";
        break;
      }
      case ItemKind::Line: {
        const LineItem& l = figure.lines[i];
        out << "<polyline fill=\"none\" stroke=\"" << colour(l.color) << "\" stroke-width=\"" << num(l.width)
            << "\" points=\"";
        for (const Point& p : l.points) out << num(p.x) << "," << num(p.y) << " ";
        out << "\"/>\n";
        break;
      }
      case ItemKind::Text: text_element(out, figure.texts[i]); break;
      case ItemKind::Image: {
        const ImageItem& im = figure.image_items[i];
        const Image& image = figure.images[static_cast<std::size_t>(im.image)];
        if (image.rgba.empty()) break;  // a GPU-only texture: export figures always carry pixels
        const RgbaImage rgba = enlarged(image, im.box.width(), im.box.height());
        out << "<image x=\"" << num(im.box.x0) << "\" y=\"" << num(im.box.y0) << "\" width=\"" << num(im.box.width())
            << "\" height=\"" << num(im.box.height())
            << "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated;image-rendering:crisp-edges\""
            << " xlink:href=\"data:image/png;base64," << base64(encode_png(rgba)) << "\"/>\n";
        break;
      }
    }
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace poslab::plot

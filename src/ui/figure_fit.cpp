#include "ui/figure_fit.hpp"

#include <algorithm>
#include <cmath>

#include "plot/heatmap.hpp"

namespace poslab {

namespace {

FigurePlacement g_placement;  // the GUI is one thread; the report reads it after the views drew

// A figure whose smallest layout is larger than the room is drawn smaller (show_figure); lay it
// out for the room it will appear in at that zoom, so that it fills the panel all the same. A
// figure that scrolls down is shrunk for its width only, and is as tall as it needs.
plot::Point room_at_zoom(plot::Point room, plot::Point smallest, Overflow overflow) {
  float zoom = 1.0f;
  if (smallest.x > room.x && room.x > 0) zoom = room.x / smallest.x;
  if (overflow == Overflow::ScrollDown) return {room.x / zoom, std::max(room.y, smallest.y) / zoom};
  if (smallest.y > room.y && room.y > 0) zoom = std::min(zoom, room.y / smallest.y);
  return {room.x / zoom, room.y / zoom};
}

}  // namespace

float screen_scale(const plot::FontSet& fonts) { return fonts.scale * ImGui::GetIO().FontGlobalScale; }

plot::Point figure_room(const plot::FontSet& fonts, float reserve_below) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float s = screen_scale(fonts);
  return {std::max(0.0f, avail.x / s), std::max(0.0f, (avail.y - reserve_below) / s)};
}

float fit_parameter(float lo, float hi, const std::function<float(float)>& overflow) {
  float ok = lo;
  float g_ok = overflow(lo);
  if (g_ok > 0.0f || hi <= lo) return lo;
  float bad = hi;
  float g_bad = overflow(hi);
  if (g_bad <= 0.0f) return hi;
  // Interpolate where the overflow crosses zero, then keep the bracket [ok, bad]. Halving every
  // other step bounds the work when the overflow is far from linear (a title sets the width).
  for (int step = 0; step < 24 && bad - ok > 1.0f; ++step) {
    float s = step % 2 == 0 ? ok + (bad - ok) * (-g_ok) / (g_bad - g_ok) : 0.5f * (ok + bad);
    s = std::clamp(std::floor(s), ok + 0.5f, bad - 0.5f);
    const float g = overflow(s);
    if (g <= 0.0f) {
      ok = s;
      g_ok = g;
    } else {
      bad = s;
      g_bad = g;
    }
  }
  return ok;
}

float fit_size(plot::Point room, float lo, float hi, const std::function<plot::Point(float)>& measure,
               Overflow overflow) {
  const plot::LayoutOnly layout_only;  // trial figures are measured, not painted
  room = room_at_zoom(room, measure(lo), overflow);
  return fit_parameter(lo, hi, [&](float s) {
    const plot::Point size = measure(s);
    return std::max(size.x - room.x, size.y - room.y);
  });
}

plot::Point fit_area(plot::Point room, plot::Point lo, plot::Point hi,
                     const std::function<plot::Point(float, float)>& measure, Overflow overflow) {
  // The width hardly depends on the height parameter and the height on the width (a subtitle
  // may wrap): fit the width at the smallest height, the height at that width, then the width
  // again at the height found.
  const plot::LayoutOnly layout_only;  // trial figures are measured, not painted
  room = room_at_zoom(room, measure(lo.x, lo.y), overflow);
  float w = fit_parameter(lo.x, hi.x, [&](float s) { return measure(s, lo.y).x - room.x; });
  const float h = fit_parameter(lo.y, hi.y, [&](float s) { return measure(w, s).y - room.y; });
  if (measure(w, h).x > room.x) w = fit_parameter(lo.x, w, [&](float s) { return measure(s, h).x - room.x; });
  return {w, h};
}

bool Refit::now(bool content_changed, plot::Point room) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const bool resizing = display.x != last_display_.x || display.y != last_display_.y;
  last_display_ = display;
  if (built_ && !content_changed && (same_room(room, built_room_) || resizing)) return false;
  built_ = true;
  built_room_ = room;
  return true;
}

ShownFigure show_figure(const plot::Figure& figure, plot::Point room, const plot::FontSet& fonts,
                        plot::TextureCache& textures, const char* id, Overflow overflow) {
  ShownFigure shown;
  float zoom = 1.0f;
  if (figure.width > room.x && figure.width > 0) zoom = room.x / figure.width;
  if (overflow == Overflow::Shrink && figure.height > room.y && figure.height > 0)
    zoom = std::min(zoom, room.y / figure.height);
  zoom = std::max(zoom, 0.05f);
  shown.scale = screen_scale(fonts) * zoom;
  shown.origin = ImGui::GetCursorScreenPos();
  plot::draw_figure(ImGui::GetWindowDrawList(), figure, shown.origin, shown.scale, fonts, textures);
  const ImVec2 size(figure.width * shown.scale, figure.height * shown.scale);
  if (id) {
    ImGui::InvisibleButton(id, ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
    shown.hovered = ImGui::IsItemHovered();
  } else {
    ImGui::Dummy(size);
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  shown.mouse = {(mouse.x - shown.origin.x) / shown.scale, (mouse.y - shown.origin.y) / shown.scale};
  g_placement = {true, shown.origin, ImVec2(shown.origin.x + size.x, shown.origin.y + size.y), zoom};
  return shown;
}

const FigurePlacement& last_figure_placement() { return g_placement; }
void forget_figure_placement() { g_placement = {}; }

}  // namespace poslab

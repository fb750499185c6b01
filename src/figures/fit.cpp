#include "figures/fit.hpp"

#include <algorithm>
#include <cmath>

#include "plot/heatmap.hpp"

namespace poslab {

namespace {

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

}  // namespace poslab

#pragma once
// Fitting a figure to a room: figures are built in points (the logical pixels of exports) from one
// or two size parameters, and sized to fill the panel they are shown in (gui/show_figure.hpp).
//
// A view builds its figure from one or two size parameters (a heatmap's side, a plot's width and
// height). The figure grows with them, but not exactly linearly (labels thin out, subtitles wrap),
// so the fitting measures trial figures instead of predicting their size.
#include <cmath>
#include <functional>

#include "plot/draw.hpp"

namespace poslab {

// Bounds of the size parameters, in points: the cell area of a square panel, the plotting area of
// a line plot. Below the minimum a figure is drawn smaller instead; above the maximum it would
// only spread a few cells over a wall.
inline constexpr float kMinSide = 100.0f, kMaxSide = 1400.0f;
inline constexpr plot::Point kMinArea{200.0f, 120.0f}, kMaxArea{2400.0f, 1400.0f};

inline plot::Point size_of(const plot::Figure& f) { return {f.width, f.height}; }
// Whether a figure built for room `a` still suits room `b` (half a point either way).
inline bool same_room(plot::Point a, plot::Point b) { return std::abs(a.x - b.x) <= 0.5f && std::abs(a.y - b.y) <= 0.5f; }

// How a figure larger than its room is shown. The fitting lays a figure out for the room it will
// appear in: with Shrink, a room as much larger as the figure will be drawn smaller.
enum class Overflow {
  Shrink,        // drawn smaller until it fits (a plot must be seen whole)
  ScrollDown,    // narrowed to the width only; the panel scrolls down (a slide of text)
};

// The largest s in [lo, hi] (to about a point) with overflow(s) <= 0, where overflow grows with s;
// lo when even lo overflows.
float fit_parameter(float lo, float hi, const std::function<float(float)>& overflow);

// One parameter that grows the figure both ways (a square heatmap, panels side by side): the
// largest in [lo, hi] whose figure, measured by `measure`, fits `room`.
float fit_size(plot::Point room, float lo, float hi, const std::function<plot::Point(float)>& measure,
               Overflow overflow = Overflow::Shrink);

// Width and height parameters (a line plot's area) fitted separately, then checked together.
plot::Point fit_area(plot::Point room, plot::Point lo, plot::Point hi,
                     const std::function<plot::Point(float, float)>& measure, Overflow overflow = Overflow::Shrink);

}  // namespace poslab

#pragma once
// Figures on screen: built in points (the logical pixels of exports), drawn at the screen's
// pixels per point so that their text stays crisp, and sized to fill the panel they are in.
//
// A view builds its figure from one or two size parameters (a heatmap's side, a plot's width and
// height). The figure grows with them, but not exactly linearly (labels thin out, subtitles wrap),
// so the fitting measures trial figures instead of predicting their size.
#include <imgui.h>

#include <cmath>
#include <functional>

#include "plot/draw.hpp"

namespace poslab {

// Bounds of the size parameters, in points: the cell area of a square panel, the plotting area of
// a line plot. Below the minimum a figure is drawn smaller instead; above the maximum it would
// only spread a few cells over a wall.
inline constexpr float kMinSide = 100.0f, kMaxSide = 1400.0f;
inline constexpr plot::Point kMinArea{200.0f, 120.0f}, kMaxArea{2400.0f, 1400.0f};

// ImGui units per point in this frame: the fonts were baked at fonts.scale pixels per point, and
// ImGui draws them at io.FontGlobalScale units per pixel (1 on X11, ½ on a Wayland HiDPI output).
float screen_scale(const plot::FontSet& fonts);

// The space left in the current window below the cursor, in points, less `reserve_below` ImGui
// units at the bottom (text that follows the figure).
plot::Point figure_room(const plot::FontSet& fonts, float reserve_below = 0.0f);

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

// When a view lays its figure out again: at once when what it shows or its room changed, but not
// while the window is being resized (its size changed since the frame before), so that dragging
// the window's edge stays smooth; the figure drawn meanwhile is shrunk to fit if it must.
class Refit {
 public:
  // Whether to build the figure now for `room`; asked once a frame.
  bool now(bool content_changed, plot::Point room);

 private:
  bool built_ = false;
  plot::Point built_room_;
  ImVec2 last_display_;
};

struct ShownFigure {
  ImVec2 origin;        // the figure's top-left corner on screen
  float scale = 1.0f;   // ImGui units per figure point
  bool hovered = false;
  plot::Point mouse;    // the mouse in figure points (meaningful when hovered)
};

// Draws `figure` at the cursor at the screen's scale and reserves its space. A figure that does
// not fit `room` even at its smallest layout is drawn smaller, never cut. With `id` it is an
// invisible button (hover, clicks), else a plain dummy item.
ShownFigure show_figure(const plot::Figure& figure, plot::Point room, const plot::FontSet& fonts,
                        plot::TextureCache& textures, const char* id = nullptr, Overflow overflow = Overflow::Shrink);

// Where show_figure last drew (screen units), for the GUI's layout report; reset every frame.
struct FigurePlacement {
  bool drawn = false;
  ImVec2 min, max;
  float zoom = 1.0f;  // below 1 when the figure was shrunk to fit
};
const FigurePlacement& last_figure_placement();
void forget_figure_placement();

}  // namespace poslab

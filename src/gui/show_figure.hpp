#pragma once
// Figures on screen: drawn at the screen's pixels per point so that their text stays crisp, in the
// room left in the current ImGui window (the fitting itself is figures/fit.hpp).
#include <imgui.h>

#include <string_view>
#include <vector>

#include "figures/fit.hpp"
#include "plot/draw.hpp"

namespace poslab {

// ImGui units per point in this frame: the fonts were baked at fonts.scale pixels per point, and
// ImGui draws them at io.FontGlobalScale units per pixel (1 on X11, ½ on a Wayland HiDPI output).
float screen_scale(const plot::FontSet& fonts);

// The space left in the current window below the cursor, in points, less `reserve_below` ImGui
// units at the bottom (text that follows the figure).
plot::Point figure_room(const plot::FontSet& fonts, float reserve_below = 0.0f);

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
  std::vector<plot::Box> text_boxes;  // with --probe: where each of figure.texts lies (ImGui units)
};

// Draws `figure` at the cursor at the screen's scale and reserves its space. A figure that does
// not fit `room` even at its smallest layout is drawn smaller, never cut. With `id` it is an
// invisible button (hover, clicks), else a plain dummy item.
ShownFigure show_figure(const plot::Figure& figure, plot::Point room, const plot::FontSet& fonts,
                        plot::TextureCache& textures, const char* id = nullptr, Overflow overflow = Overflow::Shrink);

// Tells the probe (--probe) where `box`, in the shown figure's points, lies in the window.
void probe_box(std::string_view name, const ShownFigure& shown, const plot::Box& box, bool hover = true);
// Tells the probe the layout of a shown figure, so that a test can check that its parts keep out
// of each other's way: "PREFIX panel P" (a placed figure's bounds), "PREFIX panel P area K" (its
// plotting areas) and "PREFIX text P ROLE: TEXT" for each text as drawn (P "-": the figure's own).
void probe_layout(std::string_view prefix, const plot::Figure& figure, const ShownFigure& shown);

// Where show_figure last drew (screen units), for the GUI's layout report; reset every frame.
struct FigurePlacement {
  bool drawn = false;
  ImVec2 min, max;
  float zoom = 1.0f;  // below 1 when the figure was shrunk to fit
};
const FigurePlacement& last_figure_placement();
void forget_figure_placement();

}  // namespace poslab

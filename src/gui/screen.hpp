#pragma once
// The window on the screen: its size and OpenGL contexts, the scale it is drawn at (pixels per
// point, followed across monitors), the fonts and style baked for that scale, the UI scale menu,
// and the layout line a screenshot reports.
#include <utility>

#include <imgui.h>
#include <imgui_internal.h>

#include "figures/launch.hpp"
#include "gui/show_figure.hpp"
#include "plot/draw.hpp"

struct GLFWwindow;

namespace poslab {

// The window's size in pixels: --size, else 1440 × 900 points at the primary monitor's scale,
// no larger than its work area.
std::pair<int, int> window_size(const GuiOptions& options);
// The window with an OpenGL 4.3 core context (`gl43` true), else 3.3; null when neither is had.
GLFWwindow* open_window(const GuiOptions& options, bool& gl43);
// A hidden 1 × 1 window whose context shares `window`'s objects, for the GPU thread; null when
// the driver will not make one.
GLFWwindow* open_gpu_context(GLFWwindow* window);

// How large the interface is drawn: pixels per point (the UI scale), and framebuffer pixels per
// window unit (1 on X11, where GLFW counts in pixels; 2 on a Wayland HiDPI output).
struct ScreenScale {
  float pixels_per_point = 1.0f;
  float pixels_per_unit = 1.0f;
  float monitor = 1.0f;  // GLFW's window content scale, which Auto follows
  bool operator==(const ScreenScale&) const = default;
  float units_per_point() const { return pixels_per_point / pixels_per_unit; }
};

// The scale for this frame: `chosen` (--ui-scale or the setting) when above 0, else the content
// scale of the monitor the window is on now.
ScreenScale screen_scale_of(GLFWwindow* window, float chosen);
// Bakes the fonts at the scale's pixels per point and sizes the style to match; with the
// renderer running, its font texture is made again.
plot::FontSet bake_fonts(const ScreenScale& scale, bool renderer_running);
// The bottom bar's UI scale menu; true when the reader picked another scale (0: Auto).
bool ui_scale_menu(float& chosen, const ScreenScale& scale, float width);
// One line on where the shown view's panel and figure lie in the screenshot, in pixels.
void print_layout(std::string_view view, const ScreenScale& scale, const ImRect& panel, const FigurePlacement& figure);

}  // namespace poslab

#include "gui/screen.hpp"

#include <glad/gl.h>
// glad first: GLFW must not pull in another GL header.
#include <GLFW/glfw3.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "gui/probe.hpp"

namespace poslab {

// The window's size in pixels: --size, else 1440 × 900 points at the primary monitor's scale,
// no larger than its work area (a HiDPI laptop gets a window as large to the eye as a desktop's).
std::pair<int, int> window_size(const GuiOptions& options) {
  if (options.width > 0 && options.height > 0) return {options.width, options.height};
  float sx = 1.0f, sy = 1.0f;
  int x = 0, y = 0, w = 1 << 16, h = 1 << 16;
  if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) {
    glfwGetMonitorContentScale(monitor, &sx, &sy);
    glfwGetMonitorWorkarea(monitor, &x, &y, &w, &h);
  }
  const float scale = std::clamp(std::max(sx, sy), kMinUiScale, kMaxUiScale);
  return {std::min(static_cast<int>(1440.0f * scale), std::max(w, 200)),
          std::min(static_cast<int>(900.0f * scale), std::max(h, 200))};
}

GLFWwindow* open_window(const GuiOptions& options, bool& gl43) {
  const auto [width, height] = window_size(options);
  // The X11 class the desktop entry's StartupWMClass names: docks match the window to the
  // installed launcher and its icon.
  glfwWindowHintString(GLFW_X11_CLASS_NAME, "poslab");
  glfwWindowHintString(GLFW_X11_INSTANCE_NAME, "poslab");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(width, height, "PosLab", nullptr, nullptr);
  gl43 = window != nullptr;
  if (!window) {  // no compute shaders then, but the app still runs on the CPU path
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    window = glfwCreateWindow(width, height, "PosLab", nullptr, nullptr);
  }
  return window;
}

// A hidden 1 × 1 window whose context shares this window's objects (same version hints), for
// the GPU thread; null when the driver will not make one.
GLFWwindow* open_gpu_context(GLFWwindow* window) {
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* hidden = glfwCreateWindow(1, 1, "PosLab GPU", nullptr, window);
  glfwWindowHint(GLFW_VISIBLE, GLFW_TRUE);
  return hidden;
}

// The style at `units_per_point` ImGui units per point (paddings, spacings, roundings).
namespace {

void apply_style(float units_per_point) {
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  ImGui::StyleColorsDark();
  // Pop-ups, tooltips, menus and combo lists opaque: the dark style's 94 % let the text under
  // them show through their own.
  for (ImGuiCol c : {ImGuiCol_PopupBg, ImGuiCol_WindowBg, ImGuiCol_MenuBarBg}) style.Colors[c].w = 1.0f;
  style.WindowRounding = 0.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  style.ItemSpacing = ImVec2(8, 5);
  style.ScaleAllSizes(units_per_point);
}

}  // namespace

// The scale for this frame: `chosen` (--ui-scale or the setting) when above 0, else the content
// scale of the monitor the window is on now (it changes when the window moves to another).
ScreenScale screen_scale_of(GLFWwindow* window, float chosen) {
  ScreenScale s;
  float cx = 1.0f, cy = 1.0f;
  glfwGetWindowContentScale(window, &cx, &cy);
  s.monitor = std::clamp(std::max(cx, cy), kMinUiScale, kMaxUiScale);
  s.pixels_per_point = chosen > 0.0f ? std::clamp(chosen, kMinUiScale, kMaxUiScale) : s.monitor;
  int w = 0, h = 0, fb_w = 0, fb_h = 0;
  glfwGetWindowSize(window, &w, &h);
  glfwGetFramebufferSize(window, &fb_w, &fb_h);
  if (w > 0 && fb_w > 0) s.pixels_per_unit = static_cast<float>(fb_w) / static_cast<float>(w);
  return s;
}

// Bakes the fonts at the scale's pixels per point, so that text is rasterised at the size it is
// shown (crisp, never an upscale), and sizes the style to match. With the renderer running, its
// font texture is made again.
plot::FontSet bake_fonts(const ScreenScale& scale, bool renderer_running) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const plot::FontSet fonts =
      plot::FontSet::add_to(*io.Fonts, scale.pixels_per_point, scale.pixels_per_point < 1.5f ? 2 : 1);
  io.FontDefault = fonts.ui;
  io.FontGlobalScale = 1.0f / scale.pixels_per_unit;
  apply_style(scale.units_per_point());
  if (renderer_running) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  return fonts;
}

// The bottom bar's UI scale menu; true when the reader picked another scale (0: Auto).
bool ui_scale_menu(float& chosen, const ScreenScale& scale, float width) {
  static const float choices[] = {1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};
  char preview[64];
  if (chosen > 0.0f)
    std::snprintf(preview, sizeof preview, "UI scale %.0f%%", chosen * 100.0f);
  else
    std::snprintf(preview, sizeof preview, "UI scale: auto, %.0f%%", scale.monitor * 100.0f);
  ImGui::SetNextItemWidth(width);
  bool changed = false;
  const bool open = ImGui::BeginCombo("##ui-scale", preview);
  probe::item("ui scale");
  if (open) {
    char label[64];
    std::snprintf(label, sizeof label, "Auto: the monitor's %.0f%%", scale.monitor * 100.0f);
    if (ImGui::Selectable(label, chosen <= 0.0f)) changed = chosen > 0.0f, chosen = 0.0f;
    for (float c : choices) {
      std::snprintf(label, sizeof label, "%.0f%%", c * 100.0f);
      if (ImGui::Selectable(label, chosen == c)) changed = chosen != c, chosen = c;
      probe::item(std::string("ui scale: ") + label);
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The size of the interface and of the figures on screen (exports keep their own sizes).\n"
        "Auto follows the monitor's scale; --ui-scale S sets it for one run.");
  return changed;
}

// One line on where the shown view's panel and figure lie in the screenshot, in pixels, so that
// a test (or a person sizing the window) can check that the figure fills the panel and stays in it.
void print_layout(std::string_view view, const ScreenScale& scale, const ImRect& panel, const FigurePlacement& figure) {
  const float px = scale.pixels_per_unit;
  if (panel.GetWidth() <= 0.0f) {
    std::printf("layout: %.2f px/pt (monitor %.2f), the controls in place of the views\n", scale.pixels_per_point,
                scale.monitor);
    return;
  }
  std::printf("layout: view %.*s, %.2f px/pt (monitor %.2f), panel %.0f,%.0f,%.0f,%.0f", static_cast<int>(view.size()),
              view.data(), scale.pixels_per_point, scale.monitor, panel.Min.x * px, panel.Min.y * px, panel.Max.x * px,
              panel.Max.y * px);
  if (figure.drawn)
    std::printf(", figure %.0f,%.0f,%.0f,%.0f, zoom %.3f\n", figure.min.x * px, figure.min.y * px, figure.max.x * px,
                figure.max.y * px, figure.zoom);
  else
    std::printf(", no figure\n");
}

}  // namespace poslab

#include "gui/probe.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdio>

#include "base/files.hpp"

namespace poslab::probe {

namespace {

struct Probe {
  std::string path;
  float pixels_per_unit = 1.0f;
  std::string record;   // this frame's
  std::string written;  // the last one written
  std::string hovered;  // the named control under the mouse this frame
  std::string pressed;  // the named control under the mouse at the last press of the left button
  long long presses = 0;  // how many presses of the left button the window has seen
  long long frame = 0;
};
Probe g_probe;

std::string one_line(std::string_view text) {
  std::string s(text);
  for (char& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  return s;
}

}  // namespace

void enable(std::string path) { g_probe.path = std::move(path); }
bool enabled() { return !g_probe.path.empty(); }

void begin_frame(float pixels_per_unit) {
  g_probe.pixels_per_unit = pixels_per_unit;
  g_probe.record.clear();
  g_probe.hovered.clear();
}

void item(std::string_view name) {
  if (!enabled()) return;
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  area(name, min.x, min.y, max.x, max.y);
  // A disabled control (inside BeginDisabled: a job is running) ignores clicks, as it should; a
  // test that clicked it anyway would lose the click, so it is said and the test kit waits.
  if (ImGui::GetCurrentContext()->LastItemData.InFlags & ImGuiItemFlags_Disabled) {
    g_probe.record.pop_back();
    g_probe.record += "\tdisabled\n";
  }
}

void area(std::string_view name, float x0, float y0, float x1, float y1, bool hover) {
  if (!enabled()) return;
  const float px = g_probe.pixels_per_unit;
  char rect[96];
  std::snprintf(rect, sizeof rect, "\t%.0f\t%.0f\t%.0f\t%.0f\n", x0 * px, y0 * px, x1 * px, y1 * px);
  g_probe.record += "item\t" + one_line(name) + rect;
  // The mouse as this frame saw it (a click now lands here), whatever item lies on top.
  if (hover && ImGui::IsMouseHoveringRect(ImVec2(x0, y0), ImVec2(x1, y1), false)) g_probe.hovered = one_line(name);
}

void value(std::string_view key, std::string_view text) {
  if (!enabled()) return;
  g_probe.record += "value\t" + one_line(key) + "\t" + one_line(text) + "\n";
}

void end_frame() {
  if (!enabled()) return;
  g_probe.record += "value\thovered\t" + g_probe.hovered + "\n";
  // Every press the window saw, and where: a test knows its click arrived, and on what.
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    ++g_probe.presses;
    g_probe.pressed = g_probe.hovered;
  }
  g_probe.record += "value\tpresses\t" + std::to_string(g_probe.presses) + "\n";
  g_probe.record += "value\tpressed\t" + g_probe.pressed + "\n";
  // The frame's number, so that a test can wait for the window to have seen an event (a key held
  // down across a frame); the file is then rewritten every frame.
  g_probe.record += "value\tframe\t" + std::to_string(++g_probe.frame) + "\n";
  if (g_probe.record == g_probe.written) return;
  // A failed write is tried again next frame: the record still differs.
  if (write_file_atomic(g_probe.path, g_probe.record)) g_probe.written = g_probe.record;
}

}  // namespace poslab::probe

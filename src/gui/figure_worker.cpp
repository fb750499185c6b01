#include "gui/figure_worker.hpp"

#include <imgui.h>

namespace poslab {

void draw_figure_note(bool busy, bool have_figure, const std::string& failure) {
  const char* text = nullptr;
  ImU32 color = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  if (!failure.empty()) {
    text = failure.c_str();
    color = IM_COL32(255, 115, 90, 255);
  } else if (busy && !have_figure) {
    text = "drawing the figure …";
  }
  if (!text) return;
  ImGui::GetWindowDrawList()->AddText(ImGui::GetCursorScreenPos(), color, text);
}

}  // namespace poslab

#include "gui/flow.hpp"

#include <imgui_internal.h>

namespace poslab::flow {

float right_edge() {
  const ImGuiWindow* window = ImGui::GetCurrentWindow();
  return window->InnerRect.Max.x - window->WindowPadding.x;  // InnerRect: without the scrollbars
}

void same_line_if_fits(float width, float spacing) {
  const float gap = spacing >= 0.0f ? spacing : ImGui::GetStyle().ItemSpacing.x;
  if (ImGui::GetItemRectMax().x + gap + width <= right_edge()) ImGui::SameLine(0.0f, spacing);
}

float label(const char* text) { return ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(text, nullptr, true).x; }

float button(const char* text) { return ImGui::CalcTextSize(text, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x; }

float checkbox(const char* text) { return ImGui::GetFrameHeight() + label(text); }

float text(const char* text) { return ImGui::CalcTextSize(text).x; }

void text_wrapped(const char* text) {
  ImGui::PushTextWrapPos(right_edge() - ImGui::GetWindowPos().x + ImGui::GetScrollX());  // window-local, scrolled
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
}

void text_disabled_wrapped(const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped(text);
  ImGui::PopStyleColor();
}

}  // namespace poslab::flow

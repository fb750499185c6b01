#include "gui/shortcuts.hpp"

#include <imgui.h>

#include <string>

#include "gui/probe.hpp"

namespace poslab {

const std::vector<Shortcut>& shortcuts() {
  static const std::vector<Shortcut> table{
      {"Ctrl+E", "export the open view as PNG (poslab-VIEW.png)"},
      {"Ctrl+Shift+E", "the same at twice the pixels, for slides"},
      {"Ctrl+D", "export the open view's numbers as CSV"},
      {"Ctrl+Shift+S", "the whole window as it is now, as poslab-window.png"},
      {"← →", "the tour's previous and next step (held down, they repeat)"},
      {"mouse wheel", "attention heatmap: zoom about the cell under the pointer"},
      {"drag", "attention heatmap: pan while zoomed"},
      {"double click", "attention heatmap: every cell again"},
      {"hover", "a heatmap cell's query, key, score and weight"},
      {"drop a file", "load embeddings or a model folder dropped on the window"},
      {"F1", "this list"},
      {"Ctrl+Q", "quit (the session is remembered for next time)"},
  };
  return table;
}

void draw_shortcuts_window(bool& open) {
  if (!open) {
    probe::value("shortcuts", "closed");
    return;
  }
  ImGui::SetNextWindowSize(ImVec2(34.0f * ImGui::GetFontSize(), 0.0f), ImGuiCond_Appearing);
  if (ImGui::Begin("Shortcuts", &open, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_AlwaysAutoResize)) {
    if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
      for (const Shortcut& s : shortcuts()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(std::string(s.keys).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(std::string(s.what).c_str());
      }
      ImGui::EndTable();
    }
    ImGui::TextDisabled("Exports replace a file of the same name and say so in the status line.");
  }
  ImGui::End();
  probe::value("shortcuts", open ? "open" : "closed");
}

}  // namespace poslab

#include "gui/panels/info_panel.hpp"

#include <imgui.h>

#include "gui/probe.hpp"

namespace poslab {

void draw_info_panel(const State& state, const Workspace& workspace, const std::string& renderer) {
  // A run in flight shows in the bottom bar: a line here would change the panel's height, and with
  // it the heatmap's room, twice per run.
  const Results* r = workspace.results();
  if (!r) return;
  ImGui::Text("Computed by %s", r->backend.c_str());
  if (!r->backend_brief.empty()) {
    // Why, in a few words on the same line; the whole reason on hover.
    ImGui::SameLine();
    ImGui::TextDisabled("· %s (?)", r->backend_brief.c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "%s\n\n--backend auto takes the GPU's compute shaders on a hardware renderer and the CPU where\n"
          "OpenGL is a software renderer (llvmpipe, softpipe, swrast): there the shaders run on the\n"
          "same cores, about 30× slower than Eigen. The Compute section's backend forces either.",
          r->backend_reason.c_str());
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", renderer.c_str());
  ImGui::PopStyleColor();
  if (r->device_ms) ImGui::Text("attention: %.2f ms wall, %.2f ms on the GPU (timer queries)", r->attention_ms, *r->device_ms);
  else ImGui::Text("attention: %.2f ms on the CPU", r->attention_ms);
  if (r->cpu_check_ms) {
    ImGui::SameLine();
    ImGui::TextDisabled("· CPU reference %.2f ms", *r->cpu_check_ms);
  }
  if (r->max_diff_vs_cpu) {
    const bool ok = *r->max_diff_vs_cpu <= 1e-4;
    ImGui::TextColored(ok ? ImVec4(0.4f, 0.85f, 0.4f, 1) : ImVec4(1, 0.4f, 0.3f, 1), "max |GPU − CPU| = %.2e %s",
                       *r->max_diff_vs_cpu, ok ? "(≤ 1e-4)" : "(above 1e-4!)");
  }
  for (const auto& note : r->notes) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.6f, 0.2f, 1));
    ImGui::TextWrapped("%s", note.c_str());
    ImGui::PopStyleColor();
  }

  // The dog demo in one line: the first repeated token and how different its two outputs are.
  if (auto pair = first_repeated_token(r->tokens)) {
    const auto c = compare_outputs(r->attention.output, pair->first, pair->second);
    const std::string& word = r->tokens[static_cast<std::size_t>(pair->first)].text;
    ImGui::Spacing();
    ImGui::TextWrapped("\"%s\" at %d and %d: max |Δ output| = %.3g, cosine = %.8f", word.c_str(), c.a, c.b,
                       c.max_abs_diff, c.cosine);
    const std::string why = explain_outputs(c, r->tokens, state.model.encoding, state.model.causal);
    ImGui::TextWrapped("%s", why.c_str());
    probe::value("dog line", why);
  }
}

}  // namespace poslab

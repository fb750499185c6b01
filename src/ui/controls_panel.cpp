#include "ui/controls_panel.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <filesystem>

namespace poslab {

namespace {

// A combo over the values of an enum, named by to_string.
template <typename Enum, std::size_t N>
bool enum_combo(const char* label, Enum& value, const Enum (&values)[N], const char* const (&names)[N]) {
  bool changed = false;
  int current = 0;
  for (std::size_t k = 0; k < N; ++k)
    if (values[k] == value) current = static_cast<int>(k);
  if (ImGui::BeginCombo(label, names[current])) {
    for (std::size_t k = 0; k < N; ++k) {
      if (ImGui::Selectable(names[k], static_cast<int>(k) == current)) {
        value = values[k];
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

// ImGui 1.86 has no SeparatorText: a heading with a rule under it.
void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.55f, 0.75f, 1.0f, 1.0f), "%s", title);
  ImGui::Separator();
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

}  // namespace

ControlsActions ControlsPanel::draw(State& state, const Workspace& workspace) {
  ControlsActions actions;
  ModelSettings& m = state.model;
  ImGui::PushItemWidth(-110.0f);

  section("Sentence");
  ImGui::InputText("##sentence", &m.sentence);
  const auto& samples = sample_sentences();
  if (ImGui::BeginCombo("samples", "choose a sample…")) {
    for (std::size_t k = 0; k < samples.size(); ++k)
      if (ImGui::Selectable(samples[k].c_str(), static_cast<int>(k) == sample_index_)) {
        sample_index_ = static_cast<int>(k);
        m.sentence = samples[k];
      }
    ImGui::EndCombo();
  }
  if (const Results* r = workspace.results()) {
    int unknown = 0;
    for (const Token& t : r->tokens) unknown += t.unknown ? 1 : 0;
    ImGui::TextDisabled("%zu tokens", r->tokens.size());
    if (unknown > 0) {
      ImGui::SameLine();
      ImGui::TextColored(ImVec4(0.95f, 0.6f, 0.2f, 1), "%d not in the vocabulary", unknown);
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        for (const Token& t : r->tokens)
          if (t.unknown) ImGui::BulletText("%s", t.text.c_str());
        ImGui::TextDisabled("These get a fixed random vector derived from their text.");
        ImGui::EndTooltip();
      }
    }
  }

  section("Embeddings");
  ImGui::InputText("##embeddings", &embeddings_input);
  ImGui::SameLine();
  if (ImGui::Button("Load")) actions.load_embeddings = true;
  if (workspace.has_embeddings())
    ImGui::TextDisabled("%d words × %d dims — or drop a file on the window", workspace.embeddings().size(),
                        workspace.embeddings().dim());

  section("Positional encoding");
  {
    static constexpr EncodingKind values[] = {EncodingKind::None, EncodingKind::Sinusoidal, EncodingKind::Rope};
    static constexpr const char* names[] = {"none", "sinusoidal (added to x)", "RoPE (rotates q and k)"};
    enum_combo("encoding", m.encoding, values, names);
  }
  ImGui::BeginDisabled(m.encoding != EncodingKind::Rope);
  {
    static constexpr RopeStyle values[] = {RopeStyle::Interleaved, RopeStyle::Half};
    static constexpr const char* names[] = {"interleaved (RoFormer, Meta Llama)", "rotate-half (NeoX, HF)"};
    enum_combo("RoPE pairs", m.rope_style, values, names);
  }
  ImGui::EndDisabled();
  ImGui::BeginDisabled(m.encoding == EncodingKind::None);
  if (ImGui::InputDouble("base", &m.base, 1000.0, 10000.0, "%.0f")) m.base = std::max(m.base, 2.0);
  help_marker("θᵢ = base^(−2i/d). 10000 in the Transformer and RoFormer; 500000 in Llama 3.");
  ImGui::EndDisabled();

  section("Attention");
  if (workspace.has_embeddings()) {
    const auto counts = valid_head_counts(workspace.embeddings().dim());
    if (std::find(counts.begin(), counts.end(), m.heads) == counts.end()) m.heads = counts.front();
    if (ImGui::BeginCombo("heads", std::to_string(m.heads).c_str())) {
      for (int h : counts) {
        const std::string label = std::to_string(h) + "  (d_h = " + std::to_string(workspace.embeddings().dim() / h) + ")";
        if (ImGui::Selectable(label.c_str(), h == m.heads)) m.heads = h;
      }
      ImGui::EndCombo();
    }
  }
  {
    static constexpr ProjectionKind values[] = {ProjectionKind::Random, ProjectionKind::Identity};
    static constexpr const char* names[] = {"random Gaussian", "identity"};
    enum_combo("W_q, W_k, W_v", m.projection, values, names);
  }
  ImGui::BeginDisabled(m.projection != ProjectionKind::Random);
  float sigma = static_cast<float>(m.sigma);
  if (ImGui::SliderFloat("σ", &sigma, 0.001f, 1.0f, "%.3f", ImGuiSliderFlags_Logarithmic)) m.sigma = std::max(1e-4f, sigma);
  int seed = static_cast<int>(m.seed);
  if (ImGui::InputInt("seed", &seed)) m.seed = static_cast<std::uint64_t>(std::max(seed, 0));
  ImGui::EndDisabled();
  ImGui::Checkbox("causal mask", &m.causal);
  help_marker("Query i may only attend to keys j ≤ i: the future is masked (−∞ before the softmax).");
  if (ImGui::InputInt("pad to", &m.pad_to, 1, 8)) m.pad_to = std::clamp(m.pad_to, 0, 4096);
  help_marker("Appends <pad> tokens up to this length; their keys are masked for every query.");

  section("View");
  const int heads = std::max(1, m.heads);
  state.view.head = std::clamp(state.view.head, 0, heads - 1);
  ImGui::SliderInt("head", &state.view.head, 0, heads - 1);
  int value = state.view.value == HeatmapValue::Weights ? 0 : 1;
  ImGui::RadioButton("weights", &value, 0);
  ImGui::SameLine();
  ImGui::RadioButton("scores", &value, 1);
  state.view.value = value == 0 ? HeatmapValue::Weights : HeatmapValue::Scores;

  section("Compute");
  {
    static constexpr Backend values[] = {Backend::Gpu, Backend::Cpu};
    static constexpr const char* names[] = {"GPU compute shaders", "CPU (Eigen)"};
    enum_combo("backend", state.backend, values, names);
  }
  ImGui::Checkbox("check against CPU", &state.check_against_cpu);

  section("Export");
  ImGui::InputText("file stem", &export_stem);
  actions.export_png_1x = ImGui::Button("PNG 1×");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+E: the heatmap with axes, labels and colorbar");
  ImGui::SameLine();
  actions.export_png_2x = ImGui::Button("PNG 2×");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+Shift+E: twice the pixels, for slides and print");
  ImGui::SameLine();
  actions.export_csv = ImGui::Button("CSV");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+D: head,query,key,query_token,key_token,score,weight");
  std::error_code ec;
  const std::string target = std::filesystem::absolute(export_stem, ec).string();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("→ %s.png / .csv", target.c_str());
  ImGui::PopStyleColor();
  ImGui::PopItemWidth();
  return actions;
}

}  // namespace poslab

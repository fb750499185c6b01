#include "gui/panels/controls_panel.hpp"

#include <cstdio>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "core/model/model_config.hpp"
#include "gui/flow.hpp"
#include "gui/probe.hpp"

#include <algorithm>
#include <filesystem>

namespace poslab {

namespace {

// A combo over the values of an enum, named by to_string; for the probe, "LABEL" and each
// entry as "LABEL: NAME".
template <typename Enum, std::size_t N>
bool enum_combo(const char* label, Enum& value, const Enum (&values)[N], const char* const (&names)[N]) {
  bool changed = false;
  int current = 0;
  for (std::size_t k = 0; k < N; ++k)
    if (values[k] == value) current = static_cast<int>(k);
  const bool open = ImGui::BeginCombo(label, names[current]);
  probe::item(label);
  if (open) {
    for (std::size_t k = 0; k < N; ++k) {
      if (ImGui::Selectable(names[k], static_cast<int>(k) == current)) {
        value = values[k];
        changed = true;
      }
      probe::item(std::string(label) + ": " + names[k]);
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

// Grouped-query attention: the divisors of the head count as key/value heads. A count that no
// longer divides the heads (the heads changed), or identity projections, fall back to one per head.
void key_value_heads_combo(ModelSettings& m) {
  if (m.projection != ProjectionKind::Random || m.kv_heads < 0 || (m.kv_heads > 0 && m.heads % m.kv_heads != 0))
    m.kv_heads = 0;
  const int kv = key_value_heads(m);
  const std::string current = kv == m.heads ? "one per head (MHA)" : std::to_string(kv) + " (GQA)";
  if (ImGui::BeginCombo("kv heads", current.c_str())) {
    for (int g = m.heads; g >= 1; --g) {
      if (m.heads % g != 0) continue;
      const std::string label = g == m.heads ? std::to_string(g) + "  one per head (MHA)"
                                             : std::to_string(g) + "  groups of " + std::to_string(m.heads / g);
      if (ImGui::Selectable(label.c_str(), g == kv)) m.kv_heads = g == m.heads ? 0 : g;
    }
    ImGui::EndCombo();
  }
  help_marker("Grouped-query attention (Llama 3: 32 query heads, 8 key/value heads): consecutive query heads "
              "share one key and value projection.");
}

void draw_rope_controls(ModelSettings& m, const Workspace& workspace, ConfigField& config) {
  {
    static constexpr RopeStyle values[] = {RopeStyle::Interleaved, RopeStyle::Half};
    static constexpr const char* names[] = {"interleaved (RoFormer)", "rotate-half (NeoX, HF)"};
    enum_combo("RoPE pairs", m.rope_style, values, names);
  }
  help_marker("Interleaved pairs (x₂ᵢ, x₂ᵢ₊₁), as in RoFormer and Meta's Llama code; rotate-half pairs (xᵢ, xᵢ₊d/2), "
              "as in GPT-NeoX and Hugging Face checkpoints.");
  const int dh = workspace.has_embeddings() ? workspace.embeddings().dim() / std::max(1, m.heads) : 0;
  if (ImGui::SliderInt("rotary dim", &m.rotary_dim, 0, dh - dh % 2, m.rotary_dim == 0 ? "all" : "%d"))
    m.rotary_dim -= m.rotary_dim % 2;
  help_marker("Partial rotary: only the first dimensions of each head rotate (0 = all of d_h).");
  float p = static_cast<float>(m.rope_fraction);
  if (ImGui::SliderFloat("p (p-RoPE)", &p, 0.0f, 1.0f, "%.2f")) m.rope_fraction = p;
  help_marker("Barbero et al. 2024: the lowest-frequency fraction 1 − p of the pairs does not rotate.");
  draw_context_scaling(m.scaling);
  RopeScaling& sc = m.scaling;
  ImGui::InputText("##config", &config.path);
  ImGui::SameLine();
  const bool read_config = ImGui::Button("Read");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("rope_theta, rope_scaling and the heads from a Hugging Face config.json");
  if (read_config) {
    auto read = load_model_config(m, config.path);
    config.message = read ? "read rope_theta, rope_scaling and the heads (" + std::to_string(m.heads) + " query, " +
                                std::to_string(key_value_heads(m)) + " key/value) from " + config.path
                          : read.error();
  }
  if (!config.message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", config.message.c_str());
    ImGui::PopStyleColor();
  }
  if (ImGui::Button("Llama 3.2 preset")) {
    m.base = 500000.0;
    m.rope_style = RopeStyle::Half;
    sc = RopeScaling{};
    sc.type = RopeScalingType::Llama3;
    sc.factor = 32.0;
    sc.original_max_position = 8192;
    if (workspace.has_embeddings() && workspace.embeddings().dim() == 2048) {  // Llama 3.2 1B's own table
      m.heads = 32;
      m.kv_heads = 8;
      m.projection = ProjectionKind::Random;
    }
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("rope_theta 500000, rope_type llama3: factor 32, low 1, high 4, original 8192 (HF rotate-half); "
                      "with 2048-wide embeddings also 32 heads sharing 8 key/value heads");
  bool grid = m.grid_width > 0;
  if (ImGui::Checkbox("2-D positions (grid)", &grid)) {
    m.grid_width = grid ? 4 : 0;
    m.grid_height = grid ? 4 : 0;
  }
  if (grid) {
    int wh[2] = {m.grid_width, m.grid_height};
    if (ImGui::InputInt2("W × H", wh)) {
      m.grid_width = std::clamp(wh[0], 1, 256);
      m.grid_height = std::clamp(wh[1], 1, 256);
    }
    static constexpr Rope2d values[] = {Rope2d::Axial, Rope2d::Mixed};
    static constexpr const char* names[] = {"axial (x and y pairs apart)", "mixed (learned directions)"};
    enum_combo("2-D RoPE", m.rope_2d, values, names);
  }
  ImGui::Checkbox("first token is CLS (not rotated)", &m.cls);
}

}  // namespace

// The explorer's and a model's (the Model tab's) context scaling: its type and its numbers.
void draw_context_scaling(RopeScaling& sc) {
  {
    static constexpr RopeScalingType values[] = {RopeScalingType::None, RopeScalingType::Linear, RopeScalingType::Ntk,
                                                 RopeScalingType::Dynamic, RopeScalingType::Yarn,
                                                 RopeScalingType::Llama3};
    static constexpr const char* names[] = {"none", "linear (position interpolation)", "NTK-aware", "dynamic NTK",
                                            "YaRN", "Llama 3"};
    enum_combo("context scaling", sc.type, values, names);
  }
  if (sc.type != RopeScalingType::None) {
    if (ImGui::InputDouble("factor s", &sc.factor, 1.0, 4.0, "%.2f")) sc.factor = std::max(sc.factor, 1.0);
    if (ImGui::InputInt("original length L", &sc.original_max_position, 256, 1024))
      sc.original_max_position = std::max(sc.original_max_position, 1);
  }
  if (sc.type == RopeScalingType::Llama3) {
    ImGui::InputDouble("low_freq_factor", &sc.low_freq_factor, 0.5, 1.0, "%.2f");
    ImGui::InputDouble("high_freq_factor", &sc.high_freq_factor, 0.5, 1.0, "%.2f");
  }
  if (sc.type == RopeScalingType::Yarn) {
    ImGui::InputDouble("beta_fast", &sc.beta_fast, 1.0, 8.0, "%.1f");
    ImGui::InputDouble("beta_slow", &sc.beta_slow, 0.5, 1.0, "%.2f");
  }
}

void ControlsPanel::draw_sentence(State& state, const Workspace& workspace) {
  section("Sentence");
  ModelSettings& m = state.model;
  ImGui::InputText("##sentence", &m.sentence);
  probe::item("sentence");
  const auto& samples = sample_sentences();
  if (ImGui::BeginCombo("samples", "choose a sample…")) {
    for (std::size_t k = 0; k < samples.size(); ++k)
      if (ImGui::Selectable(samples[k].c_str(), static_cast<int>(k) == sample_index_)) {
        sample_index_ = static_cast<int>(k);
        m.sentence = samples[k];
      }
    ImGui::EndCombo();
  }
  // The count of the sentence in the box: an empty box has no tokens, whatever was computed last.
  const bool blank = m.sentence.find_first_not_of(" \t\r\n") == std::string::npos;
  if (blank) {
    ImGui::TextDisabled("no tokens: type a sentence");
    probe::value("tokens", "none");
  } else if (const Results* r = workspace.results()) {
    int unknown = 0;
    for (const Token& t : r->tokens) unknown += t.unknown ? 1 : 0;
    ImGui::TextDisabled("%zu tokens", r->tokens.size());
    probe::value("tokens", std::to_string(r->tokens.size()));
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
}

void ControlsPanel::draw_embeddings(State& state, const Workspace& workspace, ControlsActions& actions) {
  section("Embeddings");
  const float em = ImGui::GetFontSize() / 15.0f;
  // Enter loads the path as the button does (the Model tab's folder box opens its folder so too).
  if (ImGui::InputText("##embeddings", &embeddings_input, ImGuiInputTextFlags_EnterReturnsTrue)) actions.load_embeddings = true;
  probe::item("embeddings path");
  if (ImGui::IsItemHovered() && !ImGui::IsItemActive()) ImGui::SetTooltip("%s", embeddings_input.c_str());  // the whole path
  ImGui::SameLine();
  if (ImGui::Button("Load")) actions.load_embeddings = true;
  if (embeddings_input.ends_with(".safetensors") || std::filesystem::is_directory(embeddings_input, fs_error_)) {
    ImGui::SetNextItemWidth(250.0f * em);
    ImGui::InputTextWithHint("tensor", "model.embed_tokens.weight (auto)", &state.tensor_name);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The safetensors tensor to use as embeddings; press Load after changing it");
  }
  if (loader && loader->running()) {
    // The load runs on its own thread: the window keeps drawing, and it can be called off.
    char label[64];
    std::snprintf(label, sizeof label, "loading %.0f%%", 100.0 * loader->progress());
    ImGui::ProgressBar(static_cast<float>(loader->progress()), ImVec2(250.0f * em, 0.0f), label);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) actions.cancel_load = true;
  } else if (workspace.has_embeddings()) {
    ImGui::TextDisabled("%d %s × %d dims, %s — or drop a file or model folder here", workspace.embeddings().size(),
                        workspace.embeddings().tokenizer() ? "tokens" : "words", workspace.embeddings().dim(),
                        workspace.embeddings().dtype().c_str());
  }
  if (!recent.paths().empty()) {
    ImGui::SetNextItemWidth(250.0f * em);
    if (ImGui::BeginCombo("recent", "open a recent file…")) {
      for (const std::string& path : recent.paths())
        if (ImGui::Selectable(path.c_str())) {
          embeddings_input = path;
          actions.load_embeddings = true;
        }
      ImGui::EndCombo();
    }
  }
}

void ControlsPanel::draw_encoding(State& state, const Workspace& workspace) {
  section("Positional encoding");
  ModelSettings& m = state.model;
  {
    static constexpr EncodingKind values[] = {EncodingKind::None,       EncodingKind::Integer, EncodingKind::Normalized,
                                              EncodingKind::Binary,     EncodingKind::Sinusoidal,
                                              EncodingKind::Learned,    EncodingKind::Rope};
    static constexpr const char* names[] = {"none",
                                            "integer p (added to x)",
                                            "normalized p/N (added to x)",
                                            "binary bits of p (added to x)",
                                            "sinusoidal (added to x)",
                                            "learned table (added to x)",
                                            "RoPE (rotates q and k)"};
    enum_combo("encoding", m.encoding, values, names);
  }
  if (m.encoding == EncodingKind::Binary) {
    static constexpr BinaryValues values[] = {BinaryValues::ZeroOne, BinaryValues::PlusMinusOne};
    static constexpr const char* names[] = {"{0, 1}", "{−1, +1}"};
    enum_combo("bit values", m.binary_values, values, names);
  }
  if (m.encoding == EncodingKind::Learned) {
    if (ImGui::InputInt("T_max", &m.learned_max, 16, 128)) m.learned_max = std::clamp(m.learned_max, 1, 65536);
    help_marker("A learned table has one row per position up to T_max and nothing beyond it.");
    ImGui::InputText("table .npy", &m.learned_file);
    help_marker("Empty: a seeded Gaussian table. Otherwise a T_max × d float table saved with NumPy.");
  }
  if (m.encoding == EncodingKind::Sinusoidal || m.encoding == EncodingKind::Rope) {
    if (ImGui::InputDouble("base", &m.base, 1000.0, 10000.0, "%.0f")) m.base = std::max(m.base, 2.0);
    help_marker("θᵢ = base^(−2i/d). 10000 in the Transformer and RoFormer; 500000 in Llama 3.");
  }
  if (m.encoding == EncodingKind::Rope) draw_rope_controls(m, workspace, config_);
}

void ControlsPanel::draw_bias(State& state) {
  section("Bias and cross-attention");
  ModelSettings& m = state.model;
  {
    static constexpr BiasKind values[] = {BiasKind::None, BiasKind::Alibi, BiasKind::T5, BiasKind::Shaw};
    static constexpr const char* names[] = {"none", "ALiBi (linear in distance)", "T5 relative buckets",
                                            "Shaw relative vectors (CPU)"};
    enum_combo("bias", m.bias, values, names);
  }
  if (m.bias == BiasKind::T5) {
    if (ImGui::InputInt("buckets", &m.buckets)) m.buckets = std::clamp(m.buckets, 2, 1024);
    if (ImGui::InputInt("max distance", &m.max_distance)) m.max_distance = std::max(m.max_distance, 1);
  }
  if (m.bias == BiasKind::Shaw && ImGui::InputInt("clip k", &m.clip)) m.clip = std::clamp(m.clip, 0, 4096);
  bool cross = !m.cross_sentence.empty() || cross_open_;
  if (ImGui::Checkbox("cross-attention", &cross)) {
    cross_open_ = cross;
    if (!cross) m.cross_sentence.clear();
    else if (m.cross_sentence.empty()) m.cross_sentence = "The cat sat on the mat.";
  }
  if (cross) {
    ImGui::InputText("keys from", &m.cross_sentence);
    if (m.causal) m.causal = false;  // keys come from another sentence: nothing is "future"
  }
}

void ControlsPanel::draw_attention(State& state, const Workspace& workspace) {
  section("Attention");
  ModelSettings& m = state.model;
  if (workspace.has_embeddings()) {
    const auto counts = valid_head_counts(workspace.embeddings().dim());
    if (std::find(counts.begin(), counts.end(), m.heads) == counts.end()) m.heads = counts.front();
    const bool open = ImGui::BeginCombo("heads", std::to_string(m.heads).c_str());
    probe::item("heads");
    if (open) {
      for (int h : counts) {
        const std::string label = std::to_string(h) + "  (d_h = " + std::to_string(workspace.embeddings().dim() / h) + ")";
        if (ImGui::Selectable(label.c_str(), h == m.heads)) m.heads = h;
        probe::item("heads: " + std::to_string(h));
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
  key_value_heads_combo(m);
  float sigma = static_cast<float>(m.sigma);
  if (ImGui::SliderFloat("σ", &sigma, 0.001f, 1.0f, "%.3f", ImGuiSliderFlags_Logarithmic)) m.sigma = std::max(1e-4f, sigma);
  int seed = static_cast<int>(m.seed);
  if (ImGui::InputInt("seed", &seed)) m.seed = static_cast<std::uint64_t>(std::max(seed, 0));
  ImGui::EndDisabled();
  ImGui::BeginDisabled(!m.cross_sentence.empty());
  ImGui::Checkbox("causal mask", &m.causal);
  ImGui::EndDisabled();
  help_marker("Query i may only attend to keys j ≤ i: the future is masked (−∞ before the softmax).");
  if (ImGui::InputInt("pad to", &m.pad_to, 1, 8)) m.pad_to = std::clamp(m.pad_to, 0, 4096);
  help_marker("Appends <pad> tokens up to this length; their keys are masked for every query.");
}

void ControlsPanel::draw_view(State& state) {
  section("View");
  ModelSettings& m = state.model;
  const int heads = std::max(1, m.heads);
  state.view.head = std::clamp(state.view.head, 0, heads - 1);
  ImGui::BeginDisabled(state.view.mean_heads);
  ImGui::SliderInt("head", &state.view.head, 0, heads - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::Checkbox("mean", &state.view.mean_heads);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The attention heatmap shows the mean of all heads' weights or scores");
  int value = state.view.value == HeatmapValue::Weights ? 0 : 1;
  ImGui::RadioButton("weights", &value, 0);
  ImGui::SameLine();
  ImGui::RadioButton("scores", &value, 1);
  state.view.value = value == 0 ? HeatmapValue::Weights : HeatmapValue::Scores;
}

void ControlsPanel::draw_compute(State& state) {
  section("Compute");
  {
    static constexpr Backend values[] = {Backend::Auto, Backend::Gpu, Backend::Cpu};
    static constexpr const char* names[] = {"auto (the faster here)", "GPU compute shaders", "CPU (Eigen)"};
    enum_combo("backend", state.backend, values, names);
  }
  ImGui::Checkbox("check against CPU", &state.check_against_cpu);
}

void ControlsPanel::draw_export(ControlsActions& actions) {
  section("Export");
  ImGui::InputText("file stem", &export_stem);
  if (ImGui::Button("PNG 1×")) actions.export_png_scale = 1;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+E: the open view with axes, labels and colorbar");
  ImGui::SameLine();
  if (ImGui::Button("2×")) actions.export_png_scale = 2;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+Shift+E: twice the pixels, for slides");
  ImGui::SameLine();
  if (ImGui::Button("4×")) actions.export_png_scale = 4;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Four times the pixels, for print");
  ImGui::SameLine();
  actions.export_svg = ImGui::Button("SVG");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Vector text and lines; heatmap cells as an embedded image");
  ImGui::SameLine();
  actions.export_csv = ImGui::Button("CSV");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+D: the view's numbers, one value per row (columns in README)");
  ImGui::SameLine();
  actions.export_html = ImGui::Button("HTML");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The attention view (or the Model tab's heads) as one page that shows each cell's values under the pointer, "
                      "with a head selector; nothing fetched from a network");
  flow::same_line_if_fits(flow::button("PNG + SVG + CSV"));
  if (ImGui::Button("PNG + SVG + CSV")) {
    actions.export_png_scale = 1;
    actions.export_svg = actions.export_csv = true;
  }
  probe::item("export: png svg csv");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("All three, as 'poslab export VIEW --png --svg --csv': written together, or none if one cannot be");
  std::error_code ec;
  const std::string target = std::filesystem::absolute(export_stem, ec).string();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("→ %s-VIEW.png / .svg / .csv (VIEW: the open tab)", target.c_str());
  ImGui::PopStyleColor();
  ImGui::InputText("folder", &export_folder);
  actions.export_all = ImGui::Button("Export all views");
  probe::item("export: all views");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Every view's PNG, SVG and CSV into the folder, as 'poslab export all --dir'");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(70.0f * ImGui::GetFontSize() / 15.0f);
  ImGui::Combo("PNG scale", &export_all_scale_index_, "1×\0" "2×\0" "4×\0");
  export_all_scale = 1 << export_all_scale_index_;
}

void ControlsPanel::draw_session(ControlsActions& actions) {
  section("Session");
  ImGui::InputText("file", &session_path);
  actions.save_session = ImGui::Button("Save");
  ImGui::SameLine();
  actions.open_session = ImGui::Button("Open");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("JSON with every choice above; 'poslab export VIEW --session FILE' reproduces it");
}

ControlsActions ControlsPanel::draw(State& state, const Workspace& workspace, ViewId shown, bool model_layer) {
  ControlsActions actions;
  const float em = ImGui::GetFontSize() / 15.0f;  // widths below are at 15-pixel fonts; they scale with the UI
  ImGui::PushItemWidth(-110.0f * em);
  draw_sentence(state, workspace);
  draw_embeddings(state, workspace, actions);
  // The explorer's own settings: a real model runs its own positions, heads and weights (the Model
  // tab changes them), and the Train tab trains models of its own.
  if (shown == ViewId::Model || shown == ViewId::Train || shown == ViewId::Papers) {
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("The encoding, bias, heads and projections of the other tabs do not apply here: %s",
                       shown == ViewId::Model   ? "the model runs its own (change its positions in the Model tab)"
                       : shown == ViewId::Train ? "the Train tab's models have their own"
                                                : "each paper's check has its own settings");
    ImGui::PopStyleColor();
  } else {
    // The Attention tab on a model's layer: the explorer's settings would contradict the layer
    // shown, so they wait, greyed, for the other tabs.
    if (model_layer) {
      ImGui::Spacing();
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("The Attention tab shows a model's layer: the model runs its own positions, heads and weights "
                         "(change them in the Model tab). The encoding, bias and attention below are the other tabs'.");
      ImGui::PopStyleColor();
    }
    probe::value("explorer settings", model_layer ? "the model's own" : "editable");
    ImGui::BeginDisabled(model_layer);
    draw_encoding(state, workspace);
    draw_bias(state);
    draw_attention(state, workspace);
    ImGui::EndDisabled();
    draw_view(state);
    draw_compute(state);
  }
  draw_export(actions);
  draw_session(actions);
  ImGui::PopItemWidth();
  return actions;
}

}  // namespace poslab

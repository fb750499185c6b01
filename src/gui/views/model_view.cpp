#include "gui/views/model_view.hpp"

#include "figures/mrope.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/export_data.hpp"
#include "core/model/model_run.hpp"
#include "core/model/position_design.hpp"
#include "figures/attention.hpp"
#include "figures/fit.hpp"
#include "figures/train.hpp"
#include "gui/flow.hpp"
#include "gui/panels/controls_panel.hpp"
#include "gui/probe.hpp"

namespace poslab {

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}


}  // namespace

void ModelView::open_if_changed(const State& explorer) {
  const bool first = std::exchange(first_open_, false);
  if (!first && explorer.embeddings_path == model_path_) return;
  model_path_ = explorer.embeddings_path;
  std::error_code ec;
  const std::filesystem::path folder(model_path_);
  if (model_path_.empty() || !std::filesystem::is_directory(folder, ec)) {
    model_.reset();
    open_error_.clear();
    return;
  }
  // A folder that fails to open leaves the model that was there, and its settings (its error is shown).
  auto opened = Checkpoint::open(folder);
  if (!opened) {
    open_error_ = opened.error();
    return;
  }
  model_ = *opened;
  model_folder_ = model_path_;
  open_error_.clear();
  // Its settings are its own from now on: the explorer's copied once, then (unless the command
  // line gave them for this model) the model's positions as its folder has them.
  own_ = explorer;
  if (!(first && first_takes_state_)) reset_model_interventions(own_, model_->config());
}

void ModelView::share_from(const State& explorer) {
  State next = explorer;
  copy_model_interventions(own_, next);
  own_ = std::move(next);
}

void ModelView::share_back(State& explorer) const {
  State next = own_;
  copy_model_interventions(explorer, next);
  explorer = std::move(next);
}

void ModelView::update(const State& explorer) {
  open_if_changed(explorer);
  share_from(explorer);
  request_run();
}

void ModelView::request_run() {
  const State& state = own_;
  settings_error_.clear();
  if (model_)
    if (auto s = check_model_settings(state, model_->config()); !s) settings_error_ = s.error();
  if (settings_error_ != settings_error_said_) {
    if (!settings_error_.empty()) std::fprintf(stderr, "poslab: error: %s (the model runs without it)\n", settings_error_.c_str());
    settings_error_said_ = settings_error_;
  }
  if (model_ && state.view.layer >= 0) {
    ModelRequest request = model_request(state, model_->config());
    // The sinks and massive-activations lenses below read every layer: summaries and a few
    // values per layer, no matrices kept.
    request.all_layer_summaries = true;
    request.top_activations = kActivationsPerLayer;
    request.keep_qk = true;  // the score-by-pair lens
    worker_.request(model_, request);
  }
  run_ = worker_.latest();
}

// A masked LM's answers where the sentence has its mask token: the top-k for each blank.
void ModelView::draw_fill_mask(const ModelRun& run) {
  const ForwardResult& a = run.unchanged;
  const BpeTokenizer* tok = model_->tokenizer();
  int blanks = 0;
  for (std::size_t t = 0; t < a.ids.size() && t < a.top.size(); ++t) {
    if (!tok || tok->mask_token_id() != a.ids[t]) continue;
    ++blanks;
    std::string line = "position " + std::to_string(t) + ":";
    for (const TokenProbability& p : a.top[t]) line += "  \"" + visible_token(p.token) + "\" " + fmt("%.2f", p.p);
    if (run.changed && t < run.changed->top.size() && !run.changed->top[t].empty())
      line += "   (changed model: \"" + visible_token(run.changed->top[t][0].token) + "\" " + fmt("%.2f", run.changed->top[t][0].p) + ")";
    flow::text_wrapped(line.c_str());
  }
  probe::value("fill-mask blanks", std::to_string(blanks));
  if (blanks == 0)
    flow::text_disabled_wrapped(("Write " + (tok && tok->mask_token_id() >= 0 ? tok->token_text(tok->mask_token_id()) : std::string("the mask token")) +
                                 " in the sentence to ask the model to fill a blank; the table below shows its guess at every position.")
                                    .c_str());
}

void ModelView::draw_mrope(State& state, const TransformerConfig& c, const plot::FontSet& fonts) {
  probe::item("model: mrope");
  char layout[256];
  std::snprintf(layout, sizeof layout, "%s", state.view.mrope_layout.c_str());
  ImGui::SetNextItemWidth(20.0f * ImGui::GetFontSize());
  if (ImGui::InputText("layout (text:N, image:HxW in patches)", layout, sizeof layout, ImGuiInputTextFlags_EnterReturnsTrue))
    state.view.mrope_layout = layout;
  auto parsed = parse_mrope_layout(state.view.mrope_layout, c.spatial_merge);
  if (!parsed) {
    ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "%s", parsed.error().c_str());
    return;
  }
  const std::string key = model_->folder().string() + "|" + state.view.mrope_layout;
  if (key != mrope_key_) {
    mrope_ = mrope_figure(c, mrope_position_ids(*parsed, c.spatial_merge), state.view.mrope_layout, 720.0f);
    mrope_key_ = key;
  }
  show_figure(mrope_, {figure_room(fonts).x, mrope_.height}, fonts, mrope_textures_);
}

void ModelView::draw_experts(const ModelRun& run, int layer) {
  const ForwardResult& a = run.unchanged;
  const ForwardResult* b = run.changed ? &*run.changed : nullptr;
  if (layer < 0 || static_cast<std::size_t>(layer) >= a.experts.size()) return;
  const std::vector<ExpertChoice>& mine = a.experts[static_cast<std::size_t>(layer)];
  probe::value("model experts", std::to_string(mine.size()));
  if (mine.empty()) {
    flow::text_disabled_wrapped(("layer " + std::to_string(layer) + " is dense: one MLP for every position").c_str());
    return;
  }
  const auto text = [](const ExpertChoice& choice) {
    std::string s;
    for (const auto& [e, w] : choice) s += "#" + std::to_string(e) + " " + fmt("%.2f", w) + "  ";
    return s;
  };
  if (!ImGui::BeginTable("experts", b ? 4 : 3,
                         ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit,
                         ImVec2(0, 12.0f * ImGui::GetTextLineHeightWithSpacing())))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("pos");
  ImGui::TableSetupColumn("token");
  ImGui::TableSetupColumn("experts (unchanged)");
  if (b) ImGui::TableSetupColumn("experts (changed)");
  ImGui::TableHeadersRow();
  for (std::size_t t = 0; t < mine.size() && t < a.tokens.size(); ++t) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%zu", t);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(visible_token(a.tokens[t]).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(text(mine[t]).c_str());
    if (b && static_cast<std::size_t>(layer) < b->experts.size() && t < b->experts[static_cast<std::size_t>(layer)].size()) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(text(b->experts[static_cast<std::size_t>(layer)][t]).c_str());
    }
  }
  ImGui::EndTable();
}

void ModelView::draw_predictions(const ModelRun& run) {
  const ForwardResult& a = run.unchanged;
  const ForwardResult* b = run.changed ? &*run.changed : nullptr;
  ImGui::Text("Unchanged: %s", loss_text(a).c_str());
  if (b) ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.4f, 1), "%s: %s", run.describe().c_str(), loss_text(*b).c_str());
  if (a.masked_lm) draw_fill_mask(run);
  // T5's predictions follow the decoder's positions; the others', the sentence's.
  const std::vector<std::string>& rows = a.decoder_ids.empty() ? a.tokens : a.decoder_tokens;
  const std::string what = a.masked_lm ? "top-5 here" : "top-5 next";
  const int columns = b ? 4 : 3;
  // Columns as wide as their text, the table scrolling sideways rather than cutting it.
  if (!ImGui::BeginTable("predictions", columns,
                         ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                             ImGuiTableFlags_SizingFixedFit,
                         ImVec2(0, 16.0f * ImGui::GetTextLineHeightWithSpacing())))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("pos");
  ImGui::TableSetupColumn("token");
  ImGui::TableSetupColumn((what + " (unchanged)").c_str());
  if (b) ImGui::TableSetupColumn((what + " (changed)").c_str());
  ImGui::TableHeadersRow();
  const auto top_text = [](const std::vector<TokenProbability>& top) {
    std::string s;
    for (const TokenProbability& t : top) s += "\"" + visible_token(t.token) + "\" " + fmt("%.2f", t.p) + "  ";
    return s;
  };
  for (std::size_t t = 0; t < rows.size() && t < a.top.size(); ++t) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%zu", t);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(visible_token(rows[t]).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(top_text(a.top[t]).c_str());
    if (b && t < b->top.size()) {
      ImGui::TableNextColumn();
      const bool same = !b->top[t].empty() && !a.top[t].empty() && b->top[t][0].id == a.top[t][0].id;
      ImGui::TextColored(same ? ImVec4(0.85f, 0.85f, 0.85f, 1) : ImVec4(1.0f, 0.55f, 0.4f, 1), "%s%s",
                         visible_token((b->decoder_ids.empty() ? b->tokens : b->decoder_tokens)[t]).c_str(),
                         (" → " + top_text(b->top[t])).c_str());
    }
  }
  ImGui::EndTable();
}

// Each head of each grid is a button: a click opens that model's head in the Attention tab (an
// encoder–decoder's head of another stack than the shown one shows that stack).
void ModelView::draw_heads(State& state, const plot::FontSet& fonts, bool& show_attention) {
  // At the screen's pixels per point, shrunk to the panel's width when it is narrower.
  const plot::Point room{figure_room(fonts).x, heads_.figure.height};
  const ShownFigure shown = show_figure(heads_.figure, room, fonts, textures_, "heads");
  const ModelStack current = run_ ? run_->unchanged.stack : ModelStack::Encoder;
  // "head 3", "changed head 3"; another stack's heads are named after it: "cross head 3".
  const auto name = [current](const HeadThumb& t) {
    return std::string(t.changed ? "changed " : "") + (t.stack == current ? "" : std::string(to_string(t.stack)) + " ") + "head " +
           std::to_string(t.head);
  };
  if (probe::enabled()) {
    // Where each head's thumbnail is on screen, for a test's clicks.
    const ImVec2 min = ImGui::GetItemRectMin(), after = ImGui::GetCursorScreenPos();
    for (const HeadThumb& t : heads_.thumbs) {
      ImGui::SetCursorScreenPos(ImVec2(min.x + t.box.x0 * shown.scale, min.y + t.box.y0 * shown.scale));
      ImGui::Dummy(ImVec2(t.box.width() * shown.scale, t.box.height() * shown.scale));
      probe::item(name(t));
    }
    ImGui::SetCursorScreenPos(after);
  }
  if (!shown.hovered) return;
  for (const HeadThumb& t : heads_.thumbs) {
    if (!t.box.contains(shown.mouse)) continue;
    const bool two_models = run_ && run_->changed;
    const std::string of = !two_models ? "" : t.changed ? " of the changed model" : " of the unchanged model";
    ImGui::SetTooltip("%s%s: click to enlarge it in the Attention tab", name(t).c_str(), of.c_str());
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      state.view.head = t.head;
      state.view.mean_heads = false;
      state.model.stack = t.stack;
      shows_unchanged_ = !t.changed && two_models;
      show_attention = true;
    }
  }
}

// Where a model comes from: a folder typed or picked (the shipped trained models, the recent
// folders). `open` is set to the folder to open; the window loads it as Load would.
void ModelView::draw_picker(const std::vector<std::string>& recent, std::string& open) {
  const float em = ImGui::GetFontSize();
  // The folder box gives way to the Open button in a narrow panel; the picker wraps below them.
  const float folder_width = 24.0f * em, open_width = flow::button("Open");
  const float room = flow::right_edge() - ImGui::GetCursorScreenPos().x - ImGui::GetStyle().ItemSpacing.x - open_width;
  ImGui::SetNextItemWidth(std::clamp(room, 8.0f * em, folder_width));
  // Enter opens the folder as the button does.
  const bool entered = ImGui::InputTextWithHint("##model-folder", "a Hugging Face model folder", folder_input_, sizeof folder_input_,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
  probe::item("model: folder");
  ImGui::SameLine();
  if ((ImGui::Button("Open") || entered) && folder_input_[0] != '\0') open = folder_input_;
  probe::item("model: open");
  flow::same_line_if_fits(18.0f * em);
  ImGui::SetNextItemWidth(18.0f * em);
  if (ImGui::BeginCombo("##pick-model", "or pick one…")) {
    ImGui::TextDisabled("shipped with PosLab (tiny models trained on the copy task)");
    for (const std::filesystem::path& m : shipped_models()) {
      if (ImGui::Selectable(m.filename().string().c_str())) open = m.string();
      probe::item("model: shipped " + m.filename().string());
    }
    bool heading = false;
    std::error_code ec;
    for (const std::string& path : recent) {
      if (!std::filesystem::is_directory(path, ec)) continue;
      if (!heading) ImGui::TextDisabled("opened lately");
      heading = true;
      if (ImGui::Selectable(path.c_str())) open = path;
    }
    ImGui::EndCombo();
  }
  probe::item("model: pick");
  hub_box_.draw(open);
  if (!open.empty()) std::snprintf(folder_input_, sizeof folder_input_, "%s", open.c_str());
}

namespace {

// A width in tokens the model has its own of (--window, --chunk): off (0), the model's (−1) or N.
void tokens_none_or_model(const char* off_label, const char* width_label, int& setting, int own, float field) {
  bool none = setting == 0;
  if (ImGui::Checkbox(off_label, &none)) setting = none ? 0 : -1;
  flow::same_line_if_fits(field + flow::label(width_label));
  int width = setting > 0 ? setting : own;
  ImGui::SetNextItemWidth(field);
  if (ImGui::InputInt(width_label, &width) && width >= 1) setting = width == own ? -1 : width;
}

}  // namespace

// The switches of the model's own positional design: off, the other pairing, the base, the
// rotated width, windows, the local base, LongRoPE's factors, ALiBi's slopes, shift, shuffle.
void ModelView::draw_interventions(State& state, const TransformerConfig& c) {
  ModelSettings& m = state.model;
  bool off = positions_off(m, c.positions);
  probe::value("model positions", c.positions == PositionKind::None ? "none" : off ? "off" : "on");
  const char* switch_label = c.positions == PositionKind::Rope         ? "RoPE off"
                             : c.positions == PositionKind::Learned    ? "position table zeroed"
                             : c.positions == PositionKind::Sinusoidal ? "sinusoid not added"
                             : c.positions == PositionKind::None       ? nullptr
                                                                       : "position bias off";
  if (switch_label && ImGui::Checkbox(switch_label, &off)) set_positions_off(m, c.positions, off);
  if (!switch_label) flow::text_disabled_wrapped("this model has no positions to change: only the shift and shuffling below apply");
  const float field = 11.0f * ImGui::GetFontSize();
  if (c.positions == PositionKind::Rope) {
    const RopeStyle other = c.rope_style == RopeStyle::Half ? RopeStyle::Interleaved : RopeStyle::Half;
    const char* other_label = other == RopeStyle::Interleaved ? "interleaved pairs (the wrong convention)" : "rotate-half pairs (the wrong convention)";
    flow::same_line_if_fits(flow::checkbox(other_label));
    bool wrong = m.rope_style == other;
    if (ImGui::Checkbox(other_label, &wrong)) m.rope_style = wrong ? other : c.rope_style;
    ImGui::SetNextItemWidth(field);
    double base = m.base;
    if (ImGui::InputDouble(c.rope_local_theta ? "global RoPE base" : "RoPE base", &base, 0, 0, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue) &&
        base > 1.0)
      m.base = base;
    // Another context scaling at inference than the model's own (PI, NTK, YaRN …), beside the
    // base: a button that names it, its numbers in a pop-up, so the figures below keep their place.
    const std::string scaling = std::string(to_string(m.scaling.type)) +
                                (m.scaling.type == RopeScalingType::None ? "" : " ×" + fmt("%g", m.scaling.factor));
    const std::string scaling_label = "context scaling: " + scaling + "###model-scaling";
    flow::same_line_if_fits(flow::button(scaling_label.substr(0, scaling_label.find("###")).c_str()));
    if (ImGui::Button(scaling_label.c_str())) ImGui::OpenPopup("model scaling");
    probe::item("model: context scaling");
    probe::value("model scaling", scaling);
    if (ImGui::BeginPopup("model scaling")) {
      ImGui::PushItemWidth(field);
      draw_context_scaling(m.scaling);
      ImGui::PopItemWidth();
      ImGui::EndPopup();
    }
    if (c.rope_local_theta) {
      ImGui::SetNextItemWidth(field);
      double local = m.local_base > 0.0 ? m.local_base : *c.rope_local_theta;
      if (ImGui::InputDouble("local RoPE base", &local, 0, 0, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue) && local > 1.0)
        m.local_base = local == *c.rope_local_theta ? 0.0 : local;
    }
    ImGui::SetNextItemWidth(field);
    int rotary = m.rotary_dim > 0 ? m.rotary_dim : c.own_rotary_dim();
    const char* label = c.proportional_rope ? "rotated dimensions per full-layer head" : "rotated dimensions per head";
    if (ImGui::SliderInt(label, &rotary, 2, c.rotary_limit())) m.rotary_dim = rotary / 2 * 2 == c.own_rotary_dim() ? 0 : std::max(2, rotary / 2 * 2);
    if (c.scaling.type == RopeScalingType::LongRope) {
      int set = static_cast<int>(m.rope_factors);
      ImGui::SetNextItemWidth(field);
      if (ImGui::Combo("LongRoPE factors", &set, "by length (the model's rule)\0short\0long\0")) m.rope_factors = static_cast<LongRopeSet>(set);
    }
    // --drop-pairs: p-RoPE at inference, the lowest or highest pairs stopped.
    int side = m.drop_pairs.fraction > 0.0 ? (m.drop_pairs.highest ? 2 : 1) : 0;
    ImGui::SetNextItemWidth(field);
    if (ImGui::Combo("pairs stopped", &side, "none\0lowest frequencies\0highest frequencies\0")) {
      m.drop_pairs.highest = side == 2;
      m.drop_pairs.fraction = side == 0 ? 0.0 : m.drop_pairs.fraction > 0.0 ? m.drop_pairs.fraction : 0.25;
    }
    if (side != 0) {
      float fraction = static_cast<float>(m.drop_pairs.fraction);
      flow::same_line_if_fits(field + flow::label("share of the pairs"));
      ImGui::SetNextItemWidth(field);
      if (ImGui::SliderFloat("share of the pairs", &fraction, 0.05f, 1.0f, "%.2f")) m.drop_pairs.fraction = fraction;
    }
  }
  if (c.has_local_layers()) tokens_none_or_model("sliding windows off", "window (tokens)", m.window, c.sliding_window, field);
  if (!c.chunked.empty()) tokens_none_or_model("chunks off", "chunk (tokens)", m.chunk, c.chunk_size, field);  // Llama 4
  if (c.learned_sinks) {  // --sinks off: GPT-OSS without its learned sinks
    bool off_sinks = !m.sinks;
    if (ImGui::Checkbox("learned sinks removed", &off_sinks)) m.sinks = !off_sinks;
  }
  if (!c.bidirectional() && !c.encoder_decoder()) {  // --streaming K,W: StreamingLLM's cache on every layer
    // Beside the controls above when it fits: the figures below keep their place.
    flow::same_line_if_fits(ImGui::GetFrameHeight() + flow::label("streaming (first K + last W)"));
    bool streaming = m.streaming.on();
    if (ImGui::Checkbox("streaming (first K + last W)", &streaming)) m.streaming = streaming ? Streaming{4, 8} : Streaming{};
    if (m.streaming.on()) {
      int sink = m.streaming.sink, window = m.streaming.window;
      flow::same_line_if_fits(field + flow::label("K"));
      ImGui::SetNextItemWidth(field);
      if (ImGui::InputInt("K", &sink) && sink >= 0) m.streaming.sink = sink;
      flow::same_line_if_fits(field + flow::label("W"));
      ImGui::SetNextItemWidth(field);
      if (ImGui::InputInt("W", &window) && window >= 1) m.streaming.window = window;
    }
  }
  if (c.positions == PositionKind::Alibi) {
    float scale = static_cast<float>(m.alibi_scale);
    ImGui::SetNextItemWidth(field);
    if (ImGui::SliderFloat("ALiBi slopes ×", &scale, 0.0f, 4.0f, "%.2f")) m.alibi_scale = scale;
  }
  if (ImGui::Button("the model's own")) reset_model_interventions(state, c);
  // A shift moves every position alike, which only absolute positions and RoPE can see: a relative
  // bias (ALiBi, T5) would draw a "changed" model identical to the unchanged one, and the command
  // line refuses --position-shift there.
  if (c.positions == PositionKind::Rope || c.positions == PositionKind::Learned || c.positions == PositionKind::Sinusoidal) {
    ImGui::SetNextItemWidth(field);
    ImGui::SliderInt("position shift", &m.position_shift, 0, 512);
    probe::item("model: position shift");
  }
  const char* shuffle_label = "shuffle tokens (seed, 0 off)";
  flow::same_line_if_fits(8.0f * ImGui::GetFontSize() + flow::label(shuffle_label));
  ImGui::SetNextItemWidth(8.0f * ImGui::GetFontSize());
  ImGui::InputInt(shuffle_label, &state.view.permutation);
  state.view.permutation = std::max(0, state.view.permutation);
}

// An encoder–decoder's three attentions, and the decoder's text: T5 reads the sentence in its
// encoder and the target in its decoder, after the start token.
void ModelView::draw_stack(State& state, const TransformerConfig& c) {
  int stack = static_cast<int>(state.model.stack);
  ImGui::TextUnformatted("attention:");
  for (ModelStack s : {ModelStack::Encoder, ModelStack::Decoder, ModelStack::Cross}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(std::string(to_string(s)).c_str(), &stack, static_cast<int>(s))) state.model.stack = s;
    probe::item("model stack: " + std::string(to_string(s)));
  }
  if (std::string(target_input_) != state.model.target) std::snprintf(target_input_, sizeof target_input_, "%s", state.model.target.c_str());
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 30.0f * ImGui::GetFontSize()));
  if (ImGui::InputTextWithHint("target (the decoder's text)", "e.g. Das Haus ist wunderbar.", target_input_, sizeof target_input_,
                               ImGuiInputTextFlags_EnterReturnsTrue))
    state.model.target = target_input_;
  probe::item("model target");
  if (ImGui::IsItemDeactivatedAfterEdit()) state.model.target = target_input_;
  // Without a target the decoder reads its start token alone: its grids and the cross-attention's
  // are 1 × 1, which says nothing unless the reader knows why.
  const char* hint = state.model.target.empty()
                         ? "No target yet: the decoder reads its start token alone, so its attention and the cross-attention are "
                           "1 × 1. Type the decoder's text above (for a translation model, the sentence translated; press Enter) "
                           "to see the decoder attend to its own words and, across, to the sentence's."
                         : "";
  probe::value("model target hint", hint);
  if (*hint) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.35f, 1));
    flow::text_wrapped(hint);
    ImGui::PopStyleColor();
  }
  flow::text_disabled_wrapped(state.model.stack == ModelStack::Cross
                                  ? "Cross-attention: rows are the decoder's tokens, columns the sentence's; it has no positions of its own."
                              : state.model.stack == ModelStack::Decoder
                                  ? ("The decoder: causal, with T5 buckets of its own over the start token (id " + std::to_string(c.decoder_start) +
                                     ") and the target.").c_str()
                                  : "The encoder: every token sees every other, through T5's bidirectional buckets.");
}

void ModelView::draw(State& explorer, const plot::FontSet& fonts, const std::vector<std::string>& recent,
                     bool& show_attention, std::string& open) {
  update(explorer);
  draw_tab(own_, fonts, recent, show_attention, open);
  share_back(explorer);
}

void ModelView::draw_tab(State& state, const plot::FontSet& fonts, const std::vector<std::string>& recent,
                         bool& show_attention, std::string& open) {
  draw_picker(recent, open);
  // The tab's own errors, whole and wrapped where the reader looks (the status line cuts them).
  const std::string& error = !load_error_.empty() ? load_error_ : open_error_;
  probe::value("model error", error);
  if (!error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.35f, 1));
    flow::text_wrapped(error.c_str());
    ImGui::PopStyleColor();
    probe::item("model: error");
  }
  probe::value("model settings error", settings_error_);
  if (!settings_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.35f, 1));
    flow::text_wrapped((settings_error_ + " (the model runs without it)").c_str());
    ImGui::PopStyleColor();
  }
  const bool training_open = ImGui::CollapsingHeader("Positions across training");
  probe::item("model: training");
  if (training_open) training_.draw(hub_box_.repo(), state.model.sentence, fonts);
  if (!model_) {
    flow::text_wrapped(
        "Open a Hugging Face model folder (Llama, Mistral, Qwen, Gemma, Phi-3, Pythia, GPT-2, BERT, ModernBERT, T5 …: config.json, model.safetensors "
        "or its shards, tokenizer.json) above, in the Embeddings box, by dropping it on the window, or with --model DIR. "
        "A Hugging Face cache folder (~/.cache/huggingface/hub/models--ORG--NAME) works too. The model then runs its own "
        "forward pass: every layer's heads, its predictions and loss, and what changing its positions breaks.");
    return;
  }
  const TransformerConfig& c = model_->config();
  probe::value("model", model_->folder().filename().string());
  const double mb = static_cast<double>(model_->weight_bytes()) / 1e6;
  char size[32];
  std::snprintf(size, sizeof size, "%.4g %s", mb >= 1000 ? mb / 1000 : mb, mb >= 1000 ? "GB" : "MB");
  flow::text_wrapped((describe_model(c) + " · " + model_->dtype() + " weights, " + size + " memory-mapped from " +
                      model_->folder().string()).c_str());
  // The positional design, layer by layer where the layers differ.
  const std::string design = describe_positions(c);
  probe::value("design", design);
  flow::text_wrapped(design.c_str());
  if (c.positions == PositionKind::Rope)
    flow::text_disabled_wrapped(c.rope_style == RopeStyle::Half
                                    ? "Hugging Face checkpoints pair RoPE dimensions by rotate-half: pair i is (x_i, x_{i+r/2})."
                                    : "This checkpoint pairs RoPE dimensions as RoFormer does: pair i is (x_{2i}, x_{2i+1}).");
  if (!c.mrope_section.empty()) {
    const bool mrope_open = ImGui::CollapsingHeader("M-RoPE: which pairs turn by t, h and w");
    probe::item("model: mrope header");
    if (mrope_open) draw_mrope(state, c, fonts);
  }
  bool on = state.view.layer >= 0;
  if (ImGui::Checkbox("Run the model (the Attention tab shows its layer)", &on)) state.view.layer = on ? 0 : -1;
  if (!on) return;
  if (c.encoder_decoder()) draw_stack(state, c);
  const bool decoder = c.encoder_decoder() && state.model.stack != ModelStack::Encoder;
  const int layers = decoder ? c.decoder_layers : c.layers;
  state.view.layer = std::clamp(state.view.layer, 0, layers - 1);
  ImGui::SetNextItemWidth(16.0f * ImGui::GetFontSize());
  ImGui::SliderInt("layer", &state.view.layer, 0, layers - 1);
  // --precision: the same forward with BF16 activations, as Hugging Face runs a model loaded in BF16.
  // Beside the layer slider: the Model tab's figures keep their place.
  int precision = static_cast<int>(state.precision);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(12.0f * ImGui::GetFontSize());
  if (ImGui::Combo("activations", &precision, "float32 (exact)\0BF16 (Hugging Face's)\0"))
    state.precision = static_cast<Precision>(precision);
  probe::item("model: precision");
  if (!decoder)
    flow::text_disabled_wrapped(("layer " + std::to_string(state.view.layer) + ": " + describe_layer_positions(c, state.view.layer)).c_str());

  // Interventions: each shown against the unchanged model.
  ImGui::Separator();
  flow::text_wrapped("Change the positions (compared with the unchanged model):");
  draw_interventions(state, c);
  request_run();

  if (worker_.running()) {
    ImGui::ProgressBar(static_cast<float>(worker_.progress()), ImVec2(16.0f * ImGui::GetFontSize(), 0), "running the model…");
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) worker_.cancel();
  }
  if (!worker_.error().empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.35f, 1), "%s", worker_.error().c_str());
  if (!run_) return;
  if (built_version_ != worker_.version()) {
    heads_ = heads_figure(*run_, c, kHeadThumbSide);
    usage_ = frequency_usage_figure(*run_, c, 420.0f);
    sinks_ = sinks_figure(*run_, c, 420.0f).figure;
    activations_ = activations_figure(*run_, c);
    built_version_ = worker_.version();
  }
  ImGui::Separator();
  // What the run should tell the user (text left out, positions past the trained length), above
  // the figures where it cannot be missed.
  for (const std::string& note : run_->notes) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.35f, 1));
    flow::text_wrapped(("Note: " + note).c_str());
    ImGui::PopStyleColor();
  }
  probe::value("model notes", std::to_string(run_->notes.size()));
  // Which attention the run shows, as rows × columns of tokens (T5's cross-attention: decoder × sentence).
  const ForwardResult& shown = run_->shown();
  probe::value("model shown", std::string(to_string(shown.stack)) + " " + std::to_string(shown.query_tokens().size()) + "x" +
                                  std::to_string(shown.key_tokens().size()));
  if (ImGui::CollapsingHeader("Heads of the layer", ImGuiTreeNodeFlags_DefaultOpen)) draw_heads(state, fonts, show_attention);
  if (ImGui::CollapsingHeader("Predictions and loss", ImGuiTreeNodeFlags_DefaultOpen)) draw_predictions(*run_);
  if (c.experts > 0 && ImGui::CollapsingHeader("Experts of the layer", ImGuiTreeNodeFlags_DefaultOpen)) draw_experts(*run_, state.view.layer);
  draw_lenses(state, c, fonts);
}

// The lenses below the layer's heads: RoPE's frequency usage and the shown head's scores by
// rotary pair (RoPE models), then every layer's sinks and largest activations.
void ModelView::draw_lenses(const State& state, const TransformerConfig& c, const plot::FontSet& fonts) {
  const bool usage_open = c.positions == PositionKind::Rope && ImGui::CollapsingHeader("RoPE frequency usage");
  if (c.positions == PositionKind::Rope) probe::item("model: frequency usage");
  if (usage_open) {
    show_figure(usage_.figure, {figure_room(fonts).x, usage_.figure.height}, fonts, usage_textures_);
    probe::item("model: frequency usage figure");
  }
  const bool pairs_open = c.positions == PositionKind::Rope && !state.view.mean_heads &&
                          ImGui::CollapsingHeader(("Score by rotary pair (head " + std::to_string(state.view.head) + ")").c_str());
  if (c.positions == PositionKind::Rope) probe::item("model: pair scores");
  if (pairs_open) {
    const auto wanted = std::make_tuple(worker_.version(), state.view.head, state.view.query);
    if (pairs_built_ != wanted) {
      auto out = pair_scores_output(state, *run_, c);
      pairs_ = out ? std::move(out->figure) : plot::Figure{};
      pairs_error_ = out ? "" : out.error();
      pairs_built_ = wanted;
    }
    if (!pairs_error_.empty()) flow::text_wrapped(pairs_error_.c_str());
    else show_figure(pairs_, {figure_room(fonts).x, pairs_.height}, fonts, pairs_textures_);
    probe::item("model: pair scores figure");
  }
  // Every layer at once: StreamingLLM's sinks and Sun et al.'s massive activations.
  const bool sinks_open = ImGui::CollapsingHeader("Attention sinks (every layer)");
  probe::item("model: sinks");
  if (sinks_open) {
    show_figure(sinks_, {figure_room(fonts).x, sinks_.height}, fonts, sinks_textures_);
    probe::item("model: sinks figure");
  }
  const bool activations_open = ImGui::CollapsingHeader("Massive activations (every layer)");
  probe::item("model: activations");
  if (activations_open) {
    show_figure(activations_, {figure_room(fonts).x, activations_.height}, fonts, activations_textures_);
    probe::item("model: activations figure");
  }
}

}  // namespace poslab

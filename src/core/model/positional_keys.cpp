#include "core/model/positional_keys.hpp"

#include <nlohmann/json.hpp>
#include <string_view>

namespace poslab {

namespace {

using Json = nlohmann::json;

// A refused key, and the values that leave the model as PosLab runs it (absent and null always do).
struct Refusal {
  const char* key;
  const char* why;
  std::vector<Json> neutral;
};

// Keys of designs PosLab does not run, refused in every family's config.json: a config flattened
// from a newer model keeps them, and running without them would be a silently different model.
const std::vector<Refusal>& foreign_refusals() {
  static const std::vector<Refusal> r = {
      {"attention_chunk_size", "asks for chunked attention (Llama 4), which PosLab does not run", {}},
      {"attn_temperature_tuning", "asks for attention temperature tuning (Llama 4), which PosLab does not run", {false}},
      {"use_bidirectional_attention", "asks for bidirectional attention in a decoder, which PosLab does not run", {false}},
  };
  return r;
}

// The family's own refusals.
std::vector<Refusal> family_refusals(const Architecture& a) {
  if (a.name == "bert")
    return {{"position_embedding_type",
             "is not \"absolute\": BERT's relative_key and relative_key_query (Shaw et al.'s relative positions) are not run",
             {"absolute"}}};
  return {};
}

void add(std::vector<PositionalKey>& out, const std::vector<std::string>& keys, const std::string& what) {
  for (const std::string& k : keys) out.push_back({k, KeyAction::Read, what});
}

void add_rope_keys(std::vector<PositionalKey>& out, const Architecture& a) {
  add(out, a.keys.rope_theta, "RoPE's base (of the global layers)");
  add(out, {"rope_scaling"}, "RoPE's scaling (transformers 4): every key read or refused by name");
  add(out, {"rope_parameters"},
      "transformers 5's RoPE (flat, or per layer type: full_attention, sliding_attention): every key read or refused by name; "
      "where it disagrees with the old keys, refused naming both");
  // GPT-J's rotary_dim decides the rotated share; a fraction beside it means nothing there.
  if (a.keys.rotary_dim.empty()) add(out, a.keys.partial_rotary, "the rotated share of each head");
  add(out, a.keys.rotary_dim, "the rotated dimensions of each head");
  add(out, a.keys.local_rope_theta, "the sliding layers' own RoPE base");
  add(out, {a.keys.max_positions.front()}, "L for the scalings that need it (dynamic, linear's default)");
  if (a.name == "phi3") add(out, {"original_max_position_embeddings"}, "LongRoPE's L (and s = max / L)");
}

void add_window_keys(std::vector<PositionalKey>& out, const Architecture& a) {
  if (a.windows == WindowRule::None) return;
  add(out, a.keys.window, "the sliding window's width");
  add(out, {"layer_types"}, "which layers slide (full_attention, sliding_attention; any other value refused)");
  switch (a.windows) {
    case WindowRule::FromMaxWindowLayers:
      add(out, {"use_sliding_window", "max_window_layers"}, "the window on layers from max_window_layers on");
      break;
    case WindowRule::Pattern:
      if (!a.keys.window_pattern.empty()) add(out, a.keys.window_pattern, "every n-th layer global");
      break;
    case WindowRule::GlobalEveryN: add(out, a.keys.window_pattern, "layers 0, n, 2n … global"); break;
    default: break;
  }
}

// The keys refused in this family: the foreign ones it does not read itself (Llama 4 reads its
// chunks and temperature), and its own.
std::vector<Refusal> refusals_of(const Architecture& a) {
  std::vector<Refusal> all;
  for (const Refusal& r : foreign_refusals())
    if (!(a.chunked_attention && (std::string_view(r.key) == "attention_chunk_size" || std::string_view(r.key) == "attn_temperature_tuning")))
      all.push_back(r);
  for (Refusal& r : family_refusals(a)) all.push_back(std::move(r));
  // Gemma 4's "vision": image tokens see each other both ways, text stays causal (the same model on text).
  if (a.layer_shapes)
    for (Refusal& r : all)
      if (std::string_view(r.key) == "use_bidirectional_attention") r.neutral.push_back("vision");
  return all;
}

bool neutral(const Json& value, const Refusal& r) {
  if (value.is_null()) return true;
  for (const Json& n : r.neutral)
    if (value == n) return true;
  return false;
}

}  // namespace

std::vector<PositionalKey> positional_keys(const Architecture& a) {
  std::vector<PositionalKey> out;
  switch (a.positions) {
    case PositionKind::Rope: add_rope_keys(out, a); break;
    case PositionKind::Learned: add(out, {a.keys.max_positions.front()}, "the rows of the learned position table"); break;
    case PositionKind::T5:
      add(out, a.keys.buckets, "the relative-position buckets");
      add(out, a.keys.max_distance, "the distance where the buckets stop growing");
      break;
    case PositionKind::Alibi:
    case PositionKind::Sinusoidal:
    case PositionKind::None: break;
  }
  add_window_keys(out, a);
  if (a.defaults.nope_interval > 0) add(out, {"no_rope_layers", "no_rope_layer_interval"}, "which layers have no RoPE (NoPE)");
  if (a.chunked_attention) {
    add(out, {"attention_chunk_size"}, "the chunks the rotating layers attend within");
    add(out, {"layer_types"}, "which layers attend within chunks (chunked_attention, full_attention; any other value refused)");
    add(out, {"attn_temperature_tuning", "floor_scale", "attn_scale"}, "the NoPE layers' query temperature, growing with the position");
    add(out, {"use_qk_norm"}, "the L2 norm of q and k after RoPE on the rotating layers");
  }
  if (a.latent_attention) {
    add(out, {"qk_rope_head_dim"}, "the slice of each q/k head that RoPE rotates (decoupled RoPE; its key shared by every head)");
    add(out, {"rope_interleave"}, "pairs (2i, 2i + 1) when true (the default), rotate-half pairs within the slice when false");
  }
  if (a.layer_shapes) {
    add(out, {"global_head_dim", "num_global_key_value_heads", "attention_k_eq_v"},
        "the full-attention layers' own head width and key/value heads (values = the keys' projection with attention_k_eq_v): "
        "where proportional RoPE turns a share of the pairs");
    add(out, {"num_kv_shared_layers"}, "the last layers reuse the keys (rotated as their kind) of the last earlier layer of their kind");
    add(out, {"per_layer_config"}, "the full-attention layers' head_dim and num_key_value_heads as one transformers revision saves them: "
                                   "every full layer alike, or refused");
  }
  if (a.name == "poslab") {
    add(out, {"poslab_positions"}, "where positions enter (PosLab's trained models)");
    add(out, {"poslab_rope_fraction"}, "p-RoPE: the fraction of pairs that rotate");
    add(out, {"poslab_t5_buckets", "poslab_t5_max_distance"}, "T5's buckets");
  }
  for (const Refusal& r : refusals_of(a)) out.push_back({r.key, KeyAction::Refused, r.why});
  return out;
}

Status refuse_unread_keys(const Json& config, const Architecture& a, const std::string& name) {
  for (const Refusal& r : refusals_of(a))
    if (config.contains(r.key) && !neutral(config.at(r.key), r))
      return Error{name + ": \"" + r.key + "\" " + config.at(r.key).dump() + " " + r.why};
  return Ok{};
}

std::string positional_keys_markdown() {
  std::string md = "| family | key | PosLab |\n|---|---|---|\n";
  for (const Architecture& a : architectures()) {
    const auto keys = positional_keys(a);
    for (const PositionalKey& k : keys)
      md += "| " + a.title + " | `" + k.key + "` | " + (k.action == KeyAction::Read ? "read: " : "refused: ") + k.what + " |\n";
  }
  return md;
}

}  // namespace poslab

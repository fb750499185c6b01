#include "core/model/transformer_config.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/json.hpp"
#include "core/formats/rope_parameters.hpp"
#include "core/model/model_config.hpp"
#include "core/model/positional_keys.hpp"
#include "core/model/tasks.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

// One of the keys (the first present, null counts as absent) as a whole number ≥ 0; `fallback`
// when none is present, or an error when there is no fallback (-1).
Result<int> whole(const Json& c, const std::vector<std::string>& keys, long long fallback, const std::string& name) {
  for (const std::string& key : keys) {
    if (!c.contains(key) || c.at(key).is_null()) continue;
    const Json& v = c.at(key);
    if (!v.is_number() || v.get<double>() != std::floor(v.get<double>()) || v.get<double>() < 0)
      return Error{name + ": \"" + key + "\" must be a whole number, found " + v.dump()};
    // Checked before the cast: past int's range the number would wrap (2·10⁹ → −294967296).
    if (v.get<double>() > 1e9) return Error{name + ": \"" + key + "\" is " + v.dump() + ", more than PosLab reads (10⁹)"};
    return static_cast<int>(v.get<double>());
  }
  if (fallback < 0) return Error{name + ": \"" + keys.front() + "\" is missing"};
  return static_cast<int>(fallback);
}

// The key of `keys` the file has (the first present), else the first: what a message names.
const std::string& key_in_file(const Json& c, const std::vector<std::string>& keys) {
  for (const std::string& key : keys)
    if (c.contains(key) && !c.at(key).is_null()) return key;
  return keys.front();
}

Result<double> real(const Json& c, const std::vector<std::string>& keys, double fallback, const std::string& name) {
  for (const std::string& key : keys) {
    if (!c.contains(key) || c.at(key).is_null()) continue;
    if (!c.at(key).is_number() || !std::isfinite(c.at(key).get<double>()))
      return Error{name + ": \"" + key + "\" must be a number"};
    return c.at(key).get<double>();
  }
  return fallback;
}

Result<bool> flag(const Json& c, const char* key, bool fallback, const std::string& name) {
  if (!c.contains(key) || c.at(key).is_null()) return fallback;
  if (!c.at(key).is_boolean()) return Error{name + ": \"" + key + "\" must be true or false"};
  return c.at(key).get<bool>();
}

Result<Activation> activation_of(const std::string& text, const std::string& name) {
  for (Activation a : {Activation::Silu, Activation::Gelu, Activation::GeluTanh, Activation::Relu})
    if (to_string(a) == text) return a;
  if (text == "swish") return Activation::Silu;
  if (text == "gelu_pytorch_tanh" || text == "gelu_fast") return Activation::GeluTanh;
  return Error{name + ": the activation \"" + text + "\" is not supported (silu, gelu, gelu_new, relu)"};
}

// The architecture config.json names, and where its positions enter (PosLab's own key says so).
Status read_architecture(const Json& c, const std::string& name, TransformerConfig& t) {
  std::vector<std::string> classes;
  if (c.contains("architectures") && c["architectures"].is_array())
    for (const Json& a : c["architectures"])
      if (a.is_string()) classes.push_back(a.get<std::string>());
  const std::string model_type = c.contains("model_type") && c["model_type"].is_string() ? c["model_type"].get<std::string>() : "";
  auto arch = find_architecture(classes, model_type);
  if (!arch) return Error{name + ": " + arch.error()};
  t.arch = *arch;
  t.positions = t.arch->positions;
  t.learned_sinks = t.arch->slot(TensorRole::Sinks) != nullptr;  // GPT-OSS's self_attn.sinks
  if (!c.contains("poslab_positions")) return Ok{};
  for (PositionKind p : {PositionKind::Rope, PositionKind::Learned, PositionKind::Sinusoidal, PositionKind::None,
                         PositionKind::Alibi, PositionKind::T5})
    if (c["poslab_positions"].is_string() && c["poslab_positions"].get<std::string>() == to_string(p)) {
      t.positions = p;
      return Ok{};
    }
  return Error{name + ": \"poslab_positions\" must be one of rope, learned, sinusoidal, none, alibi, t5"};
}

// The sizes, under the architecture's keys and defaults, checked against each other.
Status read_sizes(const Json& c, const std::string& name, TransformerConfig& t) {
  const ConfigKeys& keys = t.arch->keys;
  const ConfigDefaults& defaults = t.arch->defaults;
  auto hidden = whole(c, keys.hidden, -1, name);
  auto layers = whole(c, keys.layers, -1, name);
  auto heads = whole(c, keys.heads, -1, name);
  auto vocab = whole(c, {"vocab_size"}, -1, name);
  for (const auto* r : {&hidden, &layers, &heads, &vocab})
    if (!*r) return Error{r->error()};
  t.hidden = *hidden;
  t.layers = *layers;
  t.heads = *heads;
  t.vocab = *vocab;
  if (t.hidden < 1 || t.layers < 1 || t.heads < 1 || t.vocab < 1) return Error{name + ": sizes must be at least 1"};
  auto kv = whole(c, {"num_key_value_heads"}, t.heads, name);
  if (!kv) return Error{kv.error()};
  t.kv_heads = *kv;
  if (t.kv_heads < 1 || t.heads % t.kv_heads != 0)
    return Error{name + ": num_key_value_heads (" + std::to_string(t.kv_heads) + ") must divide " + key_in_file(c, keys.heads) + " (" +
                 std::to_string(t.heads) + ")"};
  const auto has_key = [&c](const std::vector<std::string>& names) {
    return std::any_of(names.begin(), names.end(), [&c](const std::string& k) { return c.contains(k) && !c.at(k).is_null(); });
  };
  if (!has_key(keys.head_dim) && t.hidden % t.heads != 0)
    return Error{name + ": " + std::to_string(t.heads) + " heads do not divide " + key_in_file(c, keys.hidden) + " " + std::to_string(t.hidden) +
                 " and no " + keys.head_dim.front() + " is given"};
  auto head_dim = whole(c, keys.head_dim, t.hidden / t.heads, name);
  if (!head_dim) return Error{head_dim.error()};
  t.head_dim = *head_dim;
  if (t.head_dim < 2) return Error{name + ": head_dim must be at least 2"};
  const long long inner_default = defaults.intermediate_per_hidden > 0 ? 1LL * defaults.intermediate_per_hidden * t.hidden : -1;
  auto inner = whole(c, keys.intermediate, inner_default, name);
  if (!inner) return Error{inner.error()};
  t.intermediate = *inner;
  if (t.intermediate < 1) return Error{name + ": \"" + key_in_file(c, keys.intermediate) + "\" must be at least 1"};
  auto positions = whole(c, keys.max_positions, defaults.max_positions > 0 ? defaults.max_positions : -1, name);
  if (!positions) return Error{positions.error()};
  t.max_positions = *positions;
  if (t.max_positions < 1) return Error{name + ": \"" + key_in_file(c, keys.max_positions) + "\" must be at least 1"};
  auto types = whole(c, {"type_vocab_size"}, 2, name);
  auto decoder = keys.decoder_layers.empty() ? Result<int>(0) : whole(c, keys.decoder_layers, t.layers, name);
  for (const auto* r : {&types, &decoder})
    if (!*r) return Error{r->error()};
  t.token_types = std::max(1, *types);
  t.decoder_layers = *decoder;
  if (t.arch->stacks == Stacks::EncoderDecoder && t.decoder_layers < 1)
    return Error{name + ": \"" + key_in_file(c, keys.decoder_layers) + "\" must be at least 1"};
  return Ok{};
}

// What the layers do: the norm's epsilon, the activation, biases and tied embeddings.
Status read_behaviour(const Json& c, const std::string& name, TransformerConfig& t) {
  const ConfigDefaults& defaults = t.arch->defaults;
  auto eps = real(c, t.arch->keys.norm_eps, 1e-5, name);
  if (!eps) return Error{eps.error()};
  // A norm divides by √(mean square + eps): eps ≤ 0 lets a zero row become NaN.
  if (!(*eps > 0.0)) return Error{name + ": \"" + key_in_file(c, t.arch->keys.norm_eps) + "\" must be greater than 0"};
  t.norm_eps = *eps;
  const std::string& act_key = t.arch->keys.activation;
  std::string act = defaults.activation;
  if (c.contains(act_key) && !c[act_key].is_null()) {
    if (!c[act_key].is_string()) return Error{name + ": \"" + act_key + "\" must be a string"};
    act = c[act_key].get<std::string>();
  }
  // T5's feed_forward_proj: "relu", or "gated-ACT" for a gated MLP ("gated-gelu" is gelu_new).
  t.gated_mlp = t.arch->mlp == MlpKind::Gated;
  if (act.rfind("gated-", 0) == 0) {
    t.gated_mlp = true;
    act = act == "gated-gelu" ? "gelu_new" : act.substr(6);
  }
  auto activation = activation_of(act, name);
  if (!activation) return Error{activation.error()};
  t.activation = *activation;
  t.head_activation = t.activation;
  if (const std::string& key = t.arch->keys.head_activation; !key.empty() && c.contains(key) && c[key].is_string()) {
    auto head = activation_of(c[key].get<std::string>(), name);
    if (!head) return Error{head.error()};
    t.head_activation = *head;
  } else if (!key.empty()) {
    t.head_activation = Activation::Gelu;
  }
  auto start = whole(c, {"decoder_start_token_id"}, 0, name);
  if (!start) return Error{start.error()};
  t.decoder_start = *start;
  auto bias = flag(c, "attention_bias", defaults.qkv_bias, name);
  if (!bias) return Error{bias.error()};
  t.attention_bias = *bias || defaults.qkv_bias;
  auto tie = flag(c, "tie_word_embeddings", defaults.tie_embeddings, name);
  if (!tie) return Error{tie.error()};
  t.tie_embeddings = *tie;
  if (t.arch->stacks == Stacks::EncoderDecoder && t.tie_embeddings) t.output_scale = 1.0 / std::sqrt(static_cast<double>(t.hidden));
  return Ok{};
}

// RoPE's base (under the architecture's keys) and scaling, its pairing, the rotated share of a
// head (a fraction or GPT-J's count), Gemma 3's local base, and PosLab's own position keys.
Status read_rope(const Json& c, const std::string& name, TransformerConfig& t) {
  const ConfigKeys& keys = t.arch->keys;
  auto rope = read_rope_parameters(c, RopeKeyNames{keys.rope_theta, keys.partial_rotary, keys.local_rope_theta}, name);
  if (!rope) return Error{rope.error()};
  const RopeLayerSettings& global = rope->global;
  t.rope_theta = global.theta.value.value_or(t.arch->defaults.rope_theta);
  t.sources.theta = global.theta ? global.theta.from : "";
  if (global.scaling) t.scaling = *global.scaling.value;
  t.sources.scaling = global.scaling.from;
  t.rope_style = t.arch->rope_style;
  const double partial = global.partial.value.value_or(t.arch->defaults.partial_rotary);
  if (partial <= 0.0 || partial > 1.0)
    return Error{name + ": \"" + (global.partial ? global.partial.from : keys.partial_rotary.front()) + "\" must be in (0, 1]"};
  t.partial_rotary = partial;
  t.sources.partial = global.partial.from;
  t.rotary_dim = static_cast<int>(t.head_dim * partial) / 2 * 2;
  if (global.proportional && partial < 1.0 && !t.arch->layer_shapes)
    return Error{name + ": rope_type \"proportional\" with a partial_rotary_factor below 1 (a share of the pairs turning over the whole head) is "
                        "read in Gemma 4 only, not in " + t.arch->title};
  // Gemma 4: the share is the full layers' proportional one (read_layer_shapes); its sliding
  // layers rotate their whole heads.
  if (t.arch->layer_shapes) {
    t.proportional_rope = global.proportional || !rope->v5;  // without rope_parameters, Gemma4TextConfig's default: proportional
    t.rotary_dim = t.head_dim;
  }
  if (!global.mrope_section.empty()) {
    int pairs = 0;
    for (int n : global.mrope_section) pairs += n;
    if (2 * pairs != t.rotary_dim)
      return Error{name + ": " + global.mrope_from + " gives " + std::to_string(pairs) + " rotary pairs, but the heads rotate " +
                   std::to_string(t.rotary_dim / 2) + " (head_dim " + std::to_string(t.head_dim) + " × partial_rotary_factor " +
                   std::to_string(partial).substr(0, 4) + " / 2)"};
    t.mrope_section = global.mrope_section;
    t.mrope_interleaved = global.mrope_interleaved;
  }
  const bool local_base = !keys.local_rope_theta.empty() || t.arch->layer_shapes;
  if (rope->local && !local_base && rope->local->theta.value.value_or(t.rope_theta) != t.rope_theta)
    return Error{name + ": " + (rope->local->theta ? rope->local->theta.from : std::string("rope_parameters.sliding_attention")) +
                 ": " + t.arch->title + " has one RoPE for every layer in PosLab; a separate one for the sliding layers is not supported"};
  if (!keys.rotary_dim.empty()) {
    auto dims = whole(c, keys.rotary_dim, t.head_dim, name);
    if (!dims) return Error{dims.error()};
    if (*dims < 2 || *dims > t.head_dim || *dims % 2 != 0)
      return Error{name + ": \"" + key_in_file(c, keys.rotary_dim) + "\" must be an even number from 2 to head_dim (" + std::to_string(t.head_dim) + ")"};
    t.rotary_dim = *dims;
    t.partial_rotary = static_cast<double>(*dims) / t.head_dim;
  }
  if (t.scaling.type == RopeScalingType::LongRope && t.scaling.short_factor.size() != static_cast<std::size_t>(t.rotary_dim / 2))
    return Error{name + ": " + t.sources.scaling + "'s LongRoPE factors number " + std::to_string(t.scaling.short_factor.size()) +
                 ", not one per rotary pair (" + std::to_string(t.rotary_dim / 2) + ": head_dim " + std::to_string(t.head_dim) + " × " +
                 key_in_file(c, keys.partial_rotary.empty() ? std::vector<std::string>{"partial_rotary_factor"} : keys.partial_rotary) + " " +
                 std::to_string(t.partial_rotary).substr(0, 4) + " / 2)"};
  // The local layers' own base (Gemma 3, ModernBERT, Gemma 4); Hugging Face's default 10000 when absent.
  if (local_base) {
    const bool given = rope->local && rope->local->theta;
    t.rope_local_theta = given ? *rope->local->theta.value : 10000.0;
    t.sources.local_theta = given ? rope->local->theta.from : "";
  }
  return Ok{};
}

// PosLab's own keys: p-RoPE's fraction and T5's buckets.
Status read_poslab_positions(const Json& c, const std::string& name, TransformerConfig& t) {
  auto fraction = real(c, {"poslab_rope_fraction"}, 1.0, name);
  if (!fraction) return Error{fraction.error()};
  if (*fraction < 0.0 || *fraction > 1.0) return Error{name + ": poslab_rope_fraction must be in [0, 1]"};
  t.rope_fraction = *fraction;
  auto buckets = whole(c, t.arch->keys.buckets, 32, name);
  auto distance = whole(c, t.arch->keys.max_distance, 128, name);
  if (!buckets) return Error{buckets.error()};
  if (!distance) return Error{distance.error()};
  if (*buckets < 2 || *distance < 1)
    return Error{name + ": \"" + t.arch->keys.buckets.front() + "\" must be at least 2 and \"" + t.arch->keys.max_distance.front() +
                 "\" at least 1"};
  t.t5_buckets = *buckets;
  t.t5_max_distance = *distance;
  return Ok{};
}

// A per-layer list of config.json (layer_types, no_rope_layers): one entry per layer, each
// mapped by `is` to 1 or 0, or an error naming the key.
Result<std::vector<std::uint8_t>> per_layer(const Json& c, const char* key, int layers, const std::string& name,
                                            const std::function<std::optional<bool>(const Json&)>& is) {
  const Json& list = c.at(key);
  if (!list.is_array() || list.size() != static_cast<std::size_t>(layers))
    return Error{name + ": \"" + key + "\" must list all " + std::to_string(layers) + " layers"};
  std::vector<std::uint8_t> out;
  for (const Json& v : list) {
    const std::optional<bool> b = is(v);
    if (!b) return Error{name + ": \"" + key + "\" holds " + v.dump() + ", which PosLab does not know"};
    out.push_back(*b ? 1 : 0);
  }
  return out;
}

// Which layers attend through the sliding window: config.json's layer_types when it has them,
// else the family's rule.
Result<std::vector<std::uint8_t>> windowed_layers(const Json& c, const std::string& name, const TransformerConfig& t) {
  if (c.contains("layer_types") && !c["layer_types"].is_null())
    return per_layer(c, "layer_types", t.layers, name, [&t](const Json& v) -> std::optional<bool> {
      if (v == "sliding_attention") return true;
      if (v == "full_attention" || (t.arch->chunked_attention && v == "chunked_attention")) return false;
      return std::nullopt;
    });
  std::vector<std::uint8_t> w(static_cast<std::size_t>(t.layers), 0);
  const ConfigKeys& keys = t.arch->keys;
  auto every = keys.window_pattern.empty() ? Result<int>(t.arch->defaults.window_pattern)
                                           : whole(c, keys.window_pattern, t.arch->defaults.window_pattern, name);
  auto from = whole(c, {"max_window_layers"}, 28, name);
  auto use = flag(c, "use_sliding_window", false, name);
  for (const auto* r : {&every, &from})
    if (!*r) return Error{r->error()};
  if (!use) return Error{use.error()};
  if (*every < 1) return Error{name + ": the global layers' interval must be at least 1"};
  for (int l = 0; l < t.layers; ++l) {
    switch (t.arch->windows) {
      case WindowRule::None: break;
      case WindowRule::Every: w[static_cast<std::size_t>(l)] = 1; break;
      case WindowRule::FromMaxWindowLayers: w[static_cast<std::size_t>(l)] = *use && l >= *from; break;
      case WindowRule::Alternate: w[static_cast<std::size_t>(l)] = l % 2 == 0; break;
      case WindowRule::Pattern: w[static_cast<std::size_t>(l)] = (l + 1) % *every != 0; break;
      case WindowRule::GlobalEveryN: w[static_cast<std::size_t>(l)] = l % *every != 0; break;
    }
  }
  return w;
}

// What differs from layer to layer (the sliding window, SmolLM3's NoPE layers) and what the
// attention does beyond q·k/√d (Gemma's query scale and soft-capping, a parallel block).
Status read_layers(const Json& c, const std::string& name, TransformerConfig& t) {
  const ConfigDefaults& defaults = t.arch->defaults;
  auto window = t.arch->windows == WindowRule::None ? Result<int>(0) : whole(c, t.arch->keys.window, defaults.sliding_window, name);
  if (!window) return Error{window.error()};
  t.sliding_window = *window;
  if (t.sliding_window > 0) {
    auto w = windowed_layers(c, name, t);
    if (!w) return Error{w.error()};
    t.windowed = *w;
  } else if (c.contains("layer_types") && !c["layer_types"].is_null()) {
    // Read even without a window, so that a list of the wrong length or with an unknown kind of
    // layer is refused as transformers refuses it, not ignored.
    auto w = windowed_layers(c, name, t);
    if (!w) return Error{w.error()};
  }
  if (c.contains("no_rope_layers") && !c["no_rope_layers"].is_null()) {
    auto r = per_layer(c, "no_rope_layers", t.layers, name, [](const Json& v) -> std::optional<bool> {
      if (v == 0 || v == false) return false;
      if (v == 1 || v == true) return true;
      return std::nullopt;
    });
    if (!r) return Error{r.error()};
    t.rope_layers = *r;
  } else if (defaults.nope_interval > 0) {
    auto every = whole(c, {"no_rope_layer_interval"}, defaults.nope_interval, name);
    if (!every) return Error{every.error()};
    if (*every < 1) return Error{name + ": \"no_rope_layer_interval\" must be at least 1"};
    for (int l = 0; l < t.layers; ++l) t.rope_layers.push_back((l + 1) % *every != 0);
  }
  auto parallel = flag(c, "use_parallel_residual", t.arch->residual == Residual::Parallel, name);
  if (!parallel) return Error{parallel.error()};
  t.parallel_residual = *parallel && t.arch->residual == Residual::Parallel;
  auto scalar = real(c, {"query_pre_attn_scalar"}, 0.0, name);
  auto attn_cap = real(c, {"attn_logit_softcapping"}, defaults.attn_softcap, name);
  auto final_cap = real(c, {"final_logit_softcapping"}, defaults.final_softcap, name);
  for (const auto* r : {&scalar, &attn_cap, &final_cap})
    if (!*r) return Error{r->error()};
  if (*scalar < 0.0 || *attn_cap < 0.0 || *final_cap < 0.0)
    return Error{name + ": query_pre_attn_scalar and the soft-capping values must not be negative"};
  t.query_scale = *scalar > 0.0 ? 1.0 / std::sqrt(*scalar) : 0.0;
  if (!t.arch->scaled_scores) t.query_scale = 1.0;  // T5: q·k unscaled
  t.attn_softcap = *attn_cap;
  t.final_softcap = *final_cap;
  auto pre_norm = flag(c, "do_layer_norm_before", true, name);
  if (!pre_norm) return Error{pre_norm.error()};
  if (!*pre_norm) return Error{name + ": do_layer_norm_before false (OPT-350m's norms after each block) is not supported"};
  if (auto proj = whole(c, {"word_embed_proj_dim"}, t.hidden, name); !proj || *proj != t.hidden)
    return Error{name + ": word_embed_proj_dim differing from hidden_size (OPT-350m's projections) is not supported"};
  return Ok{};
}

// Gemma 4's per_layer_config (one transformers revision saves the full layers' heads there, as
// {"5": {"head_dim": 512, "num_key_value_heads": 2}, …}, instead of global_head_dim and
// num_global_key_value_heads): read into those two keys of `c`, every full layer listed with the
// same values and no other layer, or refused by name.
Status read_per_layer_config(Json& c, const std::string& name, const TransformerConfig& t) {
  if (!c.contains("per_layer_config") || c["per_layer_config"].is_null()) return Ok{};
  const Json& p = c["per_layer_config"];
  const std::string where = name + ": per_layer_config";
  if (!p.is_object()) return Error{where + " must be an object of layers"};
  std::optional<Json> first;
  int listed = 0;
  for (const auto& [key, overrides] : p.items()) {
    const int layer = std::all_of(key.begin(), key.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) && !key.empty() && key.size() < 9 ? std::stoi(key) : -1;
    if (layer < 0 || layer >= t.layers || t.is_local(layer))
      return Error{where + "." + key + ": PosLab reads this key for the full-attention layers only"};
    if (!overrides.is_object()) return Error{where + "." + key + " must be an object"};
    for (const auto& [k, v] : overrides.items())
      if (k != "head_dim" && k != "num_key_value_heads") return Error{where + "." + key + "." + k + " is a key PosLab does not read (it may change the layer)"};
    if (first && overrides != *first) return Error{where + ": the full-attention layers differ from each other, which PosLab does not run"};
    first = overrides;
    ++listed;
  }
  int full = 0;
  for (int l = 0; l < t.layers; ++l) full += t.is_local(l) ? 0 : 1;
  if (!first) return Ok{};
  if (listed != full) return Error{where + " lists " + std::to_string(listed) + " of the " + std::to_string(full) + " full-attention layers"};
  for (const auto& [from, to] : {std::pair{"head_dim", "global_head_dim"}, std::pair{"num_key_value_heads", "num_global_key_value_heads"}}) {
    if (!first->contains(from)) continue;
    if (c.contains(to) && !c[to].is_null() && c[to] != (*first)[from])
      return Error{where + "'s " + from + " (" + (*first)[from].dump() + ") and " + to + " (" + c[to].dump() + ") disagree"};
    c[to] = (*first)[from];
  }
  if (first->contains("num_key_value_heads") && !c.contains("attention_k_eq_v")) c["attention_k_eq_v"] = true;
  return Ok{};
}

Status read_layer_widths(const Json& c, const std::string& name, TransformerConfig& t);

// Gemma 4's full-attention layers' own heads (global_head_dim, 512 when absent as transformers'
// default, head_dim when null; with attention_k_eq_v, num_global_key_value_heads), their
// proportional RoPE's turning pairs ⌊partial_rotary_factor · width / 2⌋ as transformers counts
// them, the layers sharing keys and values, the double-wide MLP and the per-layer inputs. Its last
// layer is always full (transformers forces it, with a warning).
Status read_layer_shapes(const Json& c, const std::string& name, TransformerConfig& t) {
  if (!t.arch->layer_shapes) return Ok{};
  if (t.sliding_window < 1 || t.windowed.empty()) return Error{name + ": \"sliding_window\" must be at least 1 (" + t.arch->title + "'s sliding layers)"};
  t.windowed.back() = 0;
  Json config = c;
  if (auto s = read_per_layer_config(config, name, t); !s) return s;
  return read_layer_widths(config, name, t);
}

// The rest of read_layer_shapes, from a config whose per_layer_config is read into its keys.
Status read_layer_widths(const Json& c, const std::string& name, TransformerConfig& t) {
  const bool null_width = c.contains("global_head_dim") && c["global_head_dim"].is_null();
  auto width = null_width ? Result<int>(t.head_dim) : whole(c, {"global_head_dim"}, 512, name);
  auto kv = whole(c, {"num_global_key_value_heads"}, 0, name);
  auto k_eq_v = flag(c, "attention_k_eq_v", false, name);
  auto shared = whole(c, {"num_kv_shared_layers"}, 0, name);
  auto wide = flag(c, "use_double_wide_mlp", false, name);
  auto per_layer = whole(c, {"hidden_size_per_layer_input"}, 256, name);
  auto per_layer_vocab = whole(c, {"vocab_size_per_layer_input"}, 262144, name);
  for (const auto* r : {&width, &kv, &shared, &per_layer, &per_layer_vocab})
    if (!*r) return Error{r->error()};
  for (const auto* r : {&k_eq_v, &wide})
    if (!*r) return Error{r->error()};
  if (*width < 2 || *width % 2 != 0) return Error{name + ": \"global_head_dim\" must be an even number from 2"};
  if (*k_eq_v && (*kv < 1 || t.heads % *kv != 0))
    return Error{name + ": attention_k_eq_v needs \"num_global_key_value_heads\" dividing the " + std::to_string(t.heads) + " heads"};
  if (*shared >= t.layers) return Error{name + ": \"num_kv_shared_layers\" (" + std::to_string(*shared) + ") must be fewer than the layers"};
  if (*per_layer > 0 && *per_layer_vocab < 1) return Error{name + ": \"vocab_size_per_layer_input\" must be at least 1"};
  t.global_head_dim = *width;
  t.global_kv_heads = *k_eq_v ? *kv : 0;
  t.keys_as_values = *k_eq_v;
  t.kv_shared_layers = *shared;
  t.double_wide_mlp = *wide;
  t.per_layer_input = *per_layer;
  t.per_layer_vocab = *per_layer_vocab;
  for (int l = t.layers - t.kv_shared_layers; l < t.layers; ++l)
    if (t.kv_source(l) < 0)
      return Error{name + ": layer " + std::to_string(l) + " shares keys and values (num_kv_shared_layers " + std::to_string(*shared) +
                   "), but no earlier layer is of its kind in layer_types"};
  if (t.proportional_rope) {
    t.global_rotating_pairs = static_cast<int>(std::floor(t.partial_rotary * t.global_head_dim / 2.0));
  } else if (t.global_head_dim != t.head_dim || t.partial_rotary < 1.0) {
    return Error{name + ": rope_parameters: the full-attention layers' RoPE is not \"proportional\": with global_head_dim " + std::to_string(t.global_head_dim) +
                 " against head_dim " + std::to_string(t.head_dim) + " (or a partial share) transformers cannot run it either"};
  }
  return Ok{};
}

// A list of layer indices (mlp_only_layers, moe_layers) as one flag per layer, or an error naming
// the key and the value out of range.
Result<std::vector<std::uint8_t>> layer_list(const Json& c, const char* key, int layers, const std::string& name) {
  if (!c[key].is_array()) return Error{name + ": \"" + key + "\" must be a list of layer indices"};
  std::vector<std::uint8_t> out(static_cast<std::size_t>(layers), 0);
  for (const Json& v : c[key]) {
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= layers)
      return Error{name + ": \"" + key + "\" holds " + v.dump() + ", not a layer from 0 to " + std::to_string(layers - 1)};
    out[static_cast<std::size_t>(v.get<long long>())] = 1;
  }
  return out;
}

// Llama 4's chunks, q/k norm and temperature: the chunked layers are layer_types'
// "chunked_attention" ones, else the layers that rotate (transformers' default layer_types).
Status read_chunks_and_temperature(const Json& c, const std::string& name, TransformerConfig& t) {
  if (!t.arch->chunked_attention) return Ok{};
  auto chunk = whole(c, {"attention_chunk_size"}, 0, name);
  auto qk_norm = flag(c, "use_qk_norm", true, name);
  // Llama 4 Scout's own config.json says 4 here: transformers takes any number as its truth.
  auto tuning = c.contains("attn_temperature_tuning") && c["attn_temperature_tuning"].is_number()
                    ? Result<bool>(c["attn_temperature_tuning"].get<double>() != 0.0)
                    : flag(c, "attn_temperature_tuning", true, name);
  auto floor_scale = real(c, {"floor_scale"}, 8192.0, name);
  auto attn_scale = real(c, {"attn_scale"}, 0.1, name);
  if (!chunk) return Error{chunk.error()};
  for (const auto* r : {&qk_norm, &tuning})
    if (!*r) return Error{r->error()};
  for (const auto* r : {&floor_scale, &attn_scale})
    if (!*r) return Error{r->error()};
  if (*floor_scale <= 0.0) return Error{name + ": \"floor_scale\" must be positive"};
  t.chunk_size = *chunk;
  t.qk_l2_norm = *qk_norm;
  t.temperature_tuning = *tuning;
  t.floor_scale = *floor_scale;
  t.attn_scale = *attn_scale;
  if (c.contains("layer_types") && !c["layer_types"].is_null()) {
    auto chunked = per_layer(c, "layer_types", t.layers, name, [](const Json& v) -> std::optional<bool> {
      if (v == "chunked_attention") return true;
      if (v == "full_attention") return false;
      return std::nullopt;
    });
    if (!chunked) return Error{chunked.error()};
    t.chunked = *chunked;
  } else {
    for (int l = 0; l < t.layers; ++l) t.chunked.push_back(t.rotates(l) ? 1 : 0);
  }
  return Ok{};
}

// quantization_config: the formats PosLab reads as the files store them — fp8 (E4M3 in 128 × 128
// blocks: DeepSeek-V3, R1, Kimi K2) and GPT-OSS's mxfp4 — and nothing else, named.
Status read_quantization(const Json& c, const std::string& name, TransformerConfig& t) {
  if (!c.contains("quantization_config") || c["quantization_config"].is_null()) return Ok{};
  const Json& q = c["quantization_config"];
  const std::string method = q.is_object() && q.contains("quant_method") && q["quant_method"].is_string() ? q["quant_method"].get<std::string>() : "";
  if (method == "mxfp4" && t.arch->moe == MoeKind::GptOss) return Ok{};
  if (method == "fp8") {
    const bool blocks = !q.contains("weight_block_size") || q["weight_block_size"] == Json::array({128, 128});
    const bool e4m3 = !q.contains("fmt") || q["fmt"] == "e4m3";
    if (blocks && e4m3) return Ok{};
    return Error{name + ": quantization_config " + q.dump() + ": PosLab reads fp8 as E4M3 in 128 × 128 blocks only"};
  }
  return Error{name + ": quantization_config's quant_method \"" + method + "\" is not a format PosLab reads (fp8 in 128 × 128 blocks; GPT-OSS's mxfp4)"};
}

// DeepSeek's latent attention: the ranks and widths, each head q/k width the content and position
// parts together (head_dim), the position part rotated (rotary_dim), the value width apart; the
// softmax scale head_dim^−½ × mscale², mscale = 0.1·mscale_all_dim·ln(factor) + 1 with YaRN.
Status read_latent_attention(const Json& c, const std::string& name, TransformerConfig& t) {
  if (!t.latent()) return Ok{};
  auto q_rank = whole(c, {"q_lora_rank"}, 0, name);
  auto kv_rank = whole(c, {"kv_lora_rank"}, -1, name);
  auto nope = whole(c, {"qk_nope_head_dim"}, -1, name);
  auto rope = whole(c, {"qk_rope_head_dim"}, -1, name);
  auto v = whole(c, {"v_head_dim"}, -1, name);
  for (const auto* r : {&q_rank, &kv_rank, &nope, &rope, &v})
    if (!*r) return Error{r->error()};
  if (*kv_rank < 1 || *v < 1 || *rope < 2 || *rope % 2 != 0 || *nope < 0)
    return Error{name + ": kv_lora_rank and v_head_dim must be at least 1, qk_rope_head_dim an even number from 2"};
  if (*v > *nope + *rope)
    return Error{name + ": v_head_dim " + std::to_string(*v) + " is wider than a q/k head (" + std::to_string(*nope + *rope) +
                 "), which PosLab's attention paths do not take"};
  t.q_lora_rank = *q_rank;
  t.kv_lora_rank = *kv_rank;
  t.qk_nope_dim = *nope;
  t.v_head_dim = *v;
  t.head_dim = *nope + *rope;
  t.rotary_dim = *rope;
  t.kv_heads = t.heads;  // each head its own content key; the position key is shared by repetition
  auto interleave = flag(c, "rope_interleave", true, name);
  if (!interleave) return Error{interleave.error()};
  t.rope_style = *interleave ? RopeStyle::Interleaved : RopeStyle::Half;
  double mscale = 1.0;
  for (const char* key : {"rope_scaling", "rope_parameters"})
    if (c.contains(key) && c[key].is_object() && c[key].contains("mscale_all_dim") && c[key]["mscale_all_dim"].is_number() &&
        t.scaling.type == RopeScalingType::Yarn && t.scaling.factor > 1.0)
      mscale = 0.1 * c[key]["mscale_all_dim"].get<double>() * std::log(t.scaling.factor) + 1.0;
  t.query_scale = mscale * mscale / std::sqrt(static_cast<double>(t.head_dim));
  return Ok{};
}

// DeepSeek's mixture: n_routed_experts of moe_intermediate_size, num_experts_per_tok of them per
// token, n_shared_experts beside them, dense layers before first_k_dense_replace (then every
// moe_layer_freq-th sparse), groups (n_group, topk_group) and routed_scaling_factor.
Status read_deepseek_experts(const Json& c, const std::string& name, TransformerConfig& t) {
  const bool v3 = t.arch->moe == MoeKind::DeepSeekV3;
  auto experts = whole(c, {"n_routed_experts"}, -1, name);
  auto k = whole(c, {"num_experts_per_tok"}, -1, name);
  auto inner = whole(c, {"moe_intermediate_size"}, -1, name);
  auto shared = whole(c, {"n_shared_experts"}, v3 ? 1 : 0, name);
  auto dense = whole(c, {"first_k_dense_replace"}, 0, name);
  auto freq = whole(c, {"moe_layer_freq"}, 1, name);
  auto groups = whole(c, {"n_group"}, 1, name);
  auto kept = whole(c, {"topk_group"}, 1, name);
  auto scaling = real(c, {"routed_scaling_factor"}, 1.0, name);
  auto norm = flag(c, "norm_topk_prob", v3, name);
  for (const auto* r : {&experts, &k, &inner, &shared, &dense, &freq, &groups, &kept})
    if (!*r) return Error{r->error()};
  if (!scaling) return Error{scaling.error()};
  if (!norm) return Error{norm.error()};
  const std::string scoring = c.contains("scoring_func") && c["scoring_func"].is_string() ? c["scoring_func"].get<std::string>() : (v3 ? "sigmoid" : "softmax");
  const std::string method = c.contains("topk_method") && c["topk_method"].is_string() ? c["topk_method"].get<std::string>() : (v3 ? "noaux_tc" : "greedy");
  if (scoring != (v3 ? "sigmoid" : "softmax") || method != (v3 ? "noaux_tc" : "greedy"))
    return Error{name + ": scoring_func \"" + scoring + "\" with topk_method \"" + method + "\" is not a routing PosLab runs (" +
                 (v3 ? "sigmoid with noaux_tc" : "softmax with greedy") + ")"};
  if (*experts < 1 || *k < 1 || *k > *experts || *inner < 1 || *freq < 1 || *groups < 1 || *experts % *groups != 0 || *kept < 1 ||
      *kept > *groups || *k > *kept * (*experts / *groups))
    return Error{name + ": n_routed_experts, num_experts_per_tok, n_group and topk_group do not make a routing (" + std::to_string(*experts) +
                 " experts in " + std::to_string(*groups) + " groups, " + std::to_string(*kept) + " kept, " + std::to_string(*k) + " chosen)"};
  t.experts = *experts;
  t.experts_per_token = *k;
  t.expert_intermediate = *inner;
  t.shared_experts = *shared;
  t.expert_groups = v3 ? *groups : 1;
  t.groups_kept = v3 ? *kept : 1;
  t.routed_scaling = *scaling;
  t.norm_topk = v3 && *norm;  // transformers' DeepseekV2 never renormalizes the chosen weights
  for (int l = 0; l < t.layers; ++l) t.sparse.push_back(l >= *dense && l % *freq == 0);
  return Ok{};
}

// Gemma 4's mixture (enable_moe_block): num_experts of moe_intermediate_size, top_k_experts of them
// per token, in every layer beside its dense MLP.
Status read_gemma4_experts(const Json& c, const std::string& name, TransformerConfig& t) {
  auto enabled = flag(c, "enable_moe_block", false, name);
  if (!enabled) return Error{enabled.error()};
  if (!*enabled) return Ok{};
  auto experts = whole(c, {"num_experts"}, -1, name);
  auto k = whole(c, {"top_k_experts"}, -1, name);
  auto inner = whole(c, {"moe_intermediate_size"}, -1, name);
  for (const auto* r : {&experts, &k, &inner})
    if (!*r) return Error{r->error()};
  if (*experts < 1 || *k < 1 || *k > *experts || *inner < 1)
    return Error{name + ": top_k_experts (" + std::to_string(*k) + ") must be from 1 to num_experts (" + std::to_string(*experts) +
                 "), moe_intermediate_size at least 1"};
  t.experts = *experts;
  t.experts_per_token = *k;
  t.expert_intermediate = *inner;
  t.norm_topk = true;
  t.sparse.assign(static_cast<std::size_t>(t.layers), 1);
  return Ok{};
}

// A mixture of experts' routing: Qwen3-MoE's num_experts, moe_intermediate_size, norm_topk_prob,
// decoder_sparse_step and mlp_only_layers; Mixtral's num_local_experts (every layer sparse, the
// chosen weights always renormalized); num_experts_per_tok for both.
Status read_experts(const Json& c, const std::string& name, TransformerConfig& t) {
  if (t.arch->moe == MoeKind::None) return Ok{};
  if (t.arch->moe == MoeKind::DeepSeekV2 || t.arch->moe == MoeKind::DeepSeekV3) return read_deepseek_experts(c, name, t);
  if (t.arch->moe == MoeKind::Gemma4) return read_gemma4_experts(c, name, t);
  if (t.arch->moe == MoeKind::Llama4) t.shared_experts = 1;
  if (t.arch->moe == MoeKind::GptOss) {  // its experts' clamp
    auto limit = real(c, {"swiglu_limit"}, 7.0, name);
    if (!limit) return Error{limit.error()};
    if (*limit <= 0.0) return Error{name + ": \"swiglu_limit\" must be positive"};
    t.swiglu_limit = *limit;
  }
  const bool qwen = t.arch->moe == MoeKind::Qwen3, llama4 = t.arch->moe == MoeKind::Llama4;
  auto experts = whole(c, {qwen ? "num_experts" : "num_local_experts"}, qwen ? -1 : 8, name);
  auto k = whole(c, {"num_experts_per_tok"}, qwen ? -1 : llama4 ? 1 : 2, name);
  // Llama 4's experts and shared expert are intermediate_size wide (its dense MLP is
  // intermediate_size_mlp, the row's Ffn); GPT-OSS's and Mixtral's are the config's intermediate size.
  auto inner = qwen ? whole(c, {"moe_intermediate_size"}, -1, name) : llama4 ? whole(c, {"intermediate_size"}, -1, name) : Result<int>(t.intermediate);
  auto step = whole(c, {llama4 ? "interleave_moe_layer_step" : "decoder_sparse_step"}, 1, name);
  auto norm = flag(c, "norm_topk_prob", !qwen, name);
  for (const auto* r : {&experts, &k, &inner, &step})
    if (!*r) return Error{r->error()};
  if (!norm) return Error{norm.error()};
  if (*experts < 1 || *k < 1 || *k > *experts)
    return Error{name + ": num_experts_per_tok (" + std::to_string(*k) + ") must be from 1 to the number of experts (" +
                 std::to_string(*experts) + ")"};
  if (*inner < 1 || *step < 1) return Error{name + ": moe_intermediate_size and decoder_sparse_step must be at least 1"};
  t.experts = *experts;
  t.experts_per_token = *k;
  t.expert_intermediate = *inner;
  t.norm_topk = qwen ? *norm : true;
  std::vector<std::uint8_t> dense(static_cast<std::size_t>(t.layers), 0);
  if (llama4 && c.contains("moe_layers") && !c["moe_layers"].is_null()) {
    auto listed = layer_list(c, "moe_layers", t.layers, name);
    if (!listed) return Error{listed.error()};
    for (int l = 0; l < t.layers; ++l) t.sparse.push_back(!(*listed)[static_cast<std::size_t>(l)] ? 0 : 1);
    return Ok{};
  }
  if (qwen && c.contains("mlp_only_layers") && !c["mlp_only_layers"].is_null()) {
    auto listed = layer_list(c, "mlp_only_layers", t.layers, name);
    if (!listed) return Error{listed.error()};
    dense = *listed;
  }
  for (int l = 0; l < t.layers; ++l) t.sparse.push_back(!dense[static_cast<std::size_t>(l)] && (l + 1) % *step == 0);
  return Ok{};
}

// poslab_task, poslab_train_length and poslab_seed: what a model PosLab trained was trained on.
Status read_training_record(const Json& c, const std::string& name, TransformerConfig& t) {
  if (!c.contains("poslab_task") && !c.contains("poslab_train_length")) return Ok{};
  if (!c.contains("poslab_task") || !c["poslab_task"].is_string() || !c.contains("poslab_train_length") ||
      !c["poslab_train_length"].is_number_unsigned())
    return Error{name + ": poslab_task must be a name and poslab_train_length a whole number"};
  TrainingRecord r;
  r.task = c["poslab_task"].get<std::string>();
  auto length = whole(c, {"poslab_train_length"}, -1, name);
  if (!length) return Error{length.error()};
  if (*length < 1 || *length > kMaxTaskLength)
    return Error{name + ": poslab_train_length " + std::to_string(*length) + " is out of range (1 to " + std::to_string(kMaxTaskLength) + ")"};
  r.train_length = *length;
  if (c.contains("poslab_seed") && c["poslab_seed"].is_number_unsigned()) r.seed = c["poslab_seed"].get<std::uint64_t>();
  t.training = r;
  return Ok{};
}

}  // namespace

std::string_view to_string(Activation a) {
  switch (a) {
    case Activation::Silu: return "silu";
    case Activation::Gelu: return "gelu";
    case Activation::GeluTanh: return "gelu_new";
    case Activation::Relu: return "relu";
  }
  return "silu";
}

std::int64_t dimension(const TransformerConfig& c, Dim d) {
  switch (d) {
    case Dim::None: return 0;
    case Dim::Hidden: return c.hidden;
    case Dim::QueryWidth: return c.query_width();
    case Dim::KvWidth: return c.kv_width();
    case Dim::FusedQkv: return static_cast<std::int64_t>(c.query_width()) + 2LL * c.kv_width();
    case Dim::Ffn: return c.intermediate;
    case Dim::FusedFfn: return 2LL * c.intermediate;
    case Dim::HeadDim: return c.head_dim;
    case Dim::Vocab: return c.vocab;
    case Dim::Positions: return static_cast<std::int64_t>(c.max_positions) + c.arch->position_offset;
    case Dim::Heads: return c.heads;
    case Dim::Buckets: return c.t5_buckets;
    case Dim::TokenTypes: return c.token_types;
    case Dim::Experts: return c.experts;
    case Dim::ExpertFfn: return c.expert_intermediate;
    case Dim::FusedExpertFfn: return 2LL * c.expert_intermediate;
    case Dim::SharedExpertFfn: return static_cast<std::int64_t>(c.shared_experts) * c.expert_intermediate;
    case Dim::QLoraRank: return c.q_lora_rank;
    case Dim::KvLoraRank: return c.kv_lora_rank;
    case Dim::KvAWidth: return static_cast<std::int64_t>(c.kv_lora_rank) + c.rotary_dim;
    case Dim::KvBWidth: return static_cast<std::int64_t>(c.heads) * (c.qk_nope_dim + c.v_head_dim);
    case Dim::ValueWidth: return static_cast<std::int64_t>(c.heads) * (c.latent() ? c.v_head_dim : c.head_dim);
    case Dim::PerLayerInput: return c.per_layer_input;
    case Dim::PerLayerAll: return static_cast<std::int64_t>(c.layers) * c.per_layer_input;
    case Dim::PerLayerVocab: return c.per_layer_vocab;
    case Dim::One: return 1;
  }
  return 0;
}

std::int64_t dimension(const TransformerConfig& c, Dim d, int layer) {
  const TransformerConfig::LayerShape s = c.shape(layer);
  switch (d) {
    case Dim::HeadDim: return s.head_dim;
    case Dim::QueryWidth: return s.query_width(c.heads);
    case Dim::KvWidth: return s.kv_width();
    case Dim::FusedQkv: return static_cast<std::int64_t>(s.query_width(c.heads)) + 2LL * s.kv_width();
    case Dim::Ffn: return s.ffn;
    case Dim::FusedFfn: return 2LL * s.ffn;
    default: return dimension(c, d);
  }
}

TransformerConfig::LayerShape TransformerConfig::shape(int layer) const {
  LayerShape s{head_dim, kv_heads, rotary_dim, rope_fraction, intermediate};
  if (!arch || !arch->layer_shapes || layer < 0 || layer >= layers) return s;
  if (!is_local(layer)) {
    if (global_head_dim > 0) s.head_dim = global_head_dim;
    if (keys_as_values && global_kv_heads > 0) s.kv_heads = global_kv_heads;
    if (proportional_rope) {
      s.rotary_dim = s.head_dim;
      s.rope_fraction = static_cast<double>(global_rotating_pairs) / (s.head_dim / 2);
    }
  }
  const int first_shared = layers - kv_shared_layers;
  if (double_wide_mlp && kv_shared_layers > 0 && first_shared > 0 && layer >= first_shared) s.ffn *= 2;
  return s;
}

int TransformerConfig::kv_source(int layer) const {
  const int first_shared = layers - kv_shared_layers;
  if (kv_shared_layers <= 0 || layer < first_shared) return -1;
  for (int j = first_shared - 1; j >= 0; --j)
    if (is_local(j) == is_local(layer)) return j;
  return -1;
}

bool TransformerConfig::has_local_layers() const {
  for (int l = 0; l < layers; ++l)
    if (is_local(l)) return true;
  return false;
}

bool is_needed(const TransformerConfig& c, Need n) {
  switch (n) {
    case Need::Always: return true;
    case Need::IfAttentionBias: return c.attention_bias;
    case Need::IfUntied: return !c.tie_embeddings;
    case Need::IfLearnedPositions: return c.positions == PositionKind::Learned;
    case Need::IfT5Positions: return c.positions == PositionKind::T5;
    case Need::IfPresent: return true;
    case Need::IfGatedMlp: return c.gated_mlp;
    case Need::IfPlainMlp: return !c.gated_mlp;
    case Need::IfDenseLayer:
    case Need::IfSparseLayer: return true;  // which layers: the layer-aware overload
    case Need::IfQLora: return c.q_lora_rank > 0;
    case Need::IfNoQLora: return c.q_lora_rank == 0;
    case Need::IfOwnKeys:
    case Need::IfOwnValues: return true;  // which layers: the layer-aware overload
    case Need::IfPerLayerInputs: return c.per_layer_input > 0;
  }
  return false;
}

bool is_needed(const TransformerConfig& c, Need n, int layer) {
  if (n == Need::IfDenseLayer) return !c.is_sparse(layer);
  if (n == Need::IfSparseLayer) return c.is_sparse(layer);
  if (n == Need::IfOwnKeys) return c.kv_source(layer) < 0;
  if (n == Need::IfOwnValues) return c.kv_source(layer) < 0 && !(c.keys_as_values && !c.is_local(layer));
  return is_needed(c, n);
}

namespace {

// A multimodal wrapper's language model: its text_config (older Qwen2.5-VL files keep the text
// model's keys at the top level) over the text config class's defaults.
Result<Json> text_model_config(const Json& c, const Architecture& a, const std::string& name) {
  if (!a.in_text_config) return c;
  Json merged = Json::parse(a.text_defaults);
  const bool nested = c.contains("text_config") && !c["text_config"].is_null();
  if (nested && !c["text_config"].is_object()) return Error{name + ": \"text_config\" must be an object"};
  const Json& text = nested ? c["text_config"] : c;
  // transformers 5's classes keep RoPE's defaults inside rope_parameters: with it given, the old
  // keys' defaults are not the model's (and would disagree with it).
  if (text.contains("rope_parameters") && !text["rope_parameters"].is_null())
    for (const char* key : {"rope_theta", "rope_scaling", "rope_local_base_freq", "partial_rotary_factor"}) merged.erase(key);
  for (const auto& [key, value] : text.items()) merged[key] = value;
  merged.erase("architectures");  // the wrapper's class, already read
  return merged;
}

}  // namespace

Result<TransformerConfig> parse_transformer_config(std::string_view text, const std::string& name) {
  auto parsed = parse_json_object(text, name, "a config.json holds an object");
  if (!parsed) return Error{parsed.error()};
  Json& c = *parsed;
  TransformerConfig t;
  if (auto s = read_architecture(c, name, t); !s) return Error{s.error()};
  auto body = text_model_config(c, *t.arch, name);
  if (!body) return Error{body.error()};
  if (c.contains("vision_config") && c["vision_config"].is_object()) {
    auto merge = whole(c["vision_config"], {"spatial_merge_size"}, 2, name + ": vision_config");
    if (!merge) return Error{merge.error()};
    t.spatial_merge = std::max(1, *merge);
  }
  const auto refusals = [](const Json& j, const std::string& n, TransformerConfig& into) { return refuse_unread_keys(j, *into.arch, n); };
  for (auto step : {+refusals, read_sizes, read_behaviour, read_rope, read_poslab_positions, read_layers, read_layer_shapes, read_chunks_and_temperature, read_latent_attention,
                    read_quantization, read_experts,
                    read_training_record})
    if (auto s = step(*body, name, t); !s) return Error{s.error()};
  return t;
}

}  // namespace poslab

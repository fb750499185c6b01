#include "core/model/transformer_config.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/formats/files.hpp"
#include "core/formats/model_config.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

// One of the keys (the first present, null counts as absent) as a whole number ≥ 0; `fallback`
// when none is present, or an error when there is no fallback (-1).
Result<int> whole(const Json& c, const std::vector<std::string>& keys, long long fallback, const std::string& name) {
  for (const std::string& key : keys) {
    if (!c.contains(key) || c.at(key).is_null()) continue;
    const Json& v = c.at(key);
    if (!v.is_number() || v.get<double>() != std::floor(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 1e9)
      return Error{name + ": \"" + key + "\" must be a whole number, found " + v.dump()};
    return static_cast<int>(v.get<double>());
  }
  if (fallback < 0) return Error{name + ": \"" + keys.front() + "\" is missing"};
  return static_cast<int>(fallback);
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
    return Error{name + ": num_key_value_heads (" + std::to_string(t.kv_heads) + ") must divide num_attention_heads (" +
                 std::to_string(t.heads) + ")"};
  if (!c.contains("head_dim") && t.hidden % t.heads != 0)
    return Error{name + ": " + std::to_string(t.heads) + " heads do not divide hidden_size " + std::to_string(t.hidden) +
                 " and no head_dim is given"};
  auto head_dim = whole(c, {"head_dim"}, t.hidden / t.heads, name);
  if (!head_dim) return Error{head_dim.error()};
  t.head_dim = *head_dim;
  if (t.head_dim < 2) return Error{name + ": head_dim must be at least 2"};
  const long long inner_default = defaults.intermediate_per_hidden > 0 ? 1LL * defaults.intermediate_per_hidden * t.hidden : -1;
  auto inner = whole(c, keys.intermediate, inner_default, name);
  if (!inner) return Error{inner.error()};
  t.intermediate = *inner;
  if (t.intermediate < 1) return Error{name + ": \"" + keys.intermediate.front() + "\" must be at least 1"};
  auto positions = whole(c, keys.max_positions, defaults.max_positions > 0 ? defaults.max_positions : -1, name);
  if (!positions) return Error{positions.error()};
  t.max_positions = *positions;
  if (t.max_positions < 1) return Error{name + ": \"" + keys.max_positions.front() + "\" must be at least 1"};
  return Ok{};
}

// What the layers do: the norm's epsilon, the activation, biases and tied embeddings.
Status read_behaviour(const Json& c, const std::string& name, TransformerConfig& t) {
  const ConfigDefaults& defaults = t.arch->defaults;
  auto eps = real(c, t.arch->keys.norm_eps, 1e-5, name);
  if (!eps) return Error{eps.error()};
  // A norm divides by √(mean square + eps): eps ≤ 0 lets a zero row become NaN.
  if (!(*eps > 0.0)) return Error{name + ": \"" + t.arch->keys.norm_eps.front() + "\" must be greater than 0"};
  t.norm_eps = *eps;
  const std::string& act_key = t.arch->keys.activation;
  std::string act = defaults.activation;
  if (c.contains(act_key) && !c[act_key].is_null()) {
    if (!c[act_key].is_string()) return Error{name + ": \"" + act_key + "\" must be a string"};
    act = c[act_key].get<std::string>();
  }
  auto activation = activation_of(act, name);
  if (!activation) return Error{activation.error()};
  t.activation = *activation;
  auto bias = flag(c, "attention_bias", defaults.qkv_bias, name);
  if (!bias) return Error{bias.error()};
  t.attention_bias = *bias || defaults.qkv_bias;
  auto tie = flag(c, "tie_word_embeddings", defaults.tie_embeddings, name);
  if (!tie) return Error{tie.error()};
  t.tie_embeddings = *tie;
  return Ok{};
}

// RoPE's base and scaling, the rotated share of a head, and PosLab's own position keys.
Status read_positions(const Json& c, const std::string& name, TransformerConfig& t) {
  auto rope = read_rope_config(c, name);
  if (!rope) return Error{rope.error()};
  if (rope->theta) t.rope_theta = *rope->theta;
  if (rope->scaling) t.scaling = *rope->scaling;
  auto partial = real(c, {"partial_rotary_factor"}, 1.0, name);
  if (!partial) return Error{partial.error()};
  if (*partial <= 0.0 || *partial > 1.0) return Error{name + ": partial_rotary_factor must be in (0, 1]"};
  t.partial_rotary = *partial;
  t.rotary_dim = static_cast<int>(t.head_dim * *partial) / 2 * 2;
  auto fraction = real(c, {"poslab_rope_fraction"}, 1.0, name);
  if (!fraction) return Error{fraction.error()};
  if (*fraction < 0.0 || *fraction > 1.0) return Error{name + ": poslab_rope_fraction must be in [0, 1]"};
  t.rope_fraction = *fraction;
  auto buckets = whole(c, {"poslab_t5_buckets"}, 32, name);
  auto distance = whole(c, {"poslab_t5_max_distance"}, 128, name);
  if (!buckets) return Error{buckets.error()};
  if (!distance) return Error{distance.error()};
  if (*buckets < 2 || *distance < 1) return Error{name + ": poslab_t5_buckets must be at least 2 and poslab_t5_max_distance at least 1"};
  t.t5_buckets = *buckets;
  t.t5_max_distance = *distance;
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
  if (*length < 1) return Error{name + ": poslab_train_length must be at least 1"};
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
    case Dim::Vocab: return c.vocab;
    case Dim::Positions: return c.max_positions;
    case Dim::Heads: return c.heads;
    case Dim::Buckets: return c.t5_buckets;
  }
  return 0;
}

bool is_needed(const TransformerConfig& c, Need n) {
  switch (n) {
    case Need::Always: return true;
    case Need::IfAttentionBias: return c.attention_bias;
    case Need::IfUntied: return !c.tie_embeddings;
    case Need::IfLearnedPositions: return c.positions == PositionKind::Learned;
    case Need::IfT5Positions: return c.positions == PositionKind::T5;
  }
  return false;
}

Result<TransformerConfig> parse_transformer_config(std::string_view text, const std::string& name) {
  Json c;
  try {
    c = Json::parse(text);
  } catch (const Json::exception& e) {
    return Error{name + ": not valid JSON: " + json_error_text(e.what())};
  }
  if (!c.is_object()) return Error{name + ": a config.json holds an object"};
  TransformerConfig t;
  for (auto step : {read_architecture, read_sizes, read_behaviour, read_positions, read_training_record})
    if (auto s = step(c, name, t); !s) return Error{s.error()};
  return t;
}

}  // namespace poslab

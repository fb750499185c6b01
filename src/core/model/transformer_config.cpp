#include "core/model/transformer_config.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/formats/model_config.hpp"
#include "core/formats/files.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

// One of the keys (the first present, null counts as absent) as a whole number ≥ 0; `fallback`
// when none is present, or an error when there is no fallback (-1).
Result<int> whole(const Json& c, std::initializer_list<const char*> keys, long long fallback, const std::string& name) {
  for (const char* key : keys) {
    if (!c.contains(key) || c.at(key).is_null()) continue;
    const Json& v = c.at(key);
    if (!v.is_number() || v.get<double>() != std::floor(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 1e9)
      return Error{name + ": \"" + key + "\" must be a whole number, found " + v.dump()};
    return static_cast<int>(v.get<double>());
  }
  if (fallback < 0) return Error{name + ": \"" + *keys.begin() + "\" is missing"};
  return static_cast<int>(fallback);
}

Result<double> real(const Json& c, std::initializer_list<const char*> keys, double fallback, const std::string& name) {
  for (const char* key : keys) {
    if (!c.contains(key) || c.at(key).is_null()) continue;
    if (!c.at(key).is_number()) return Error{name + ": \"" + key + "\" must be a number"};
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

Result<TransformerConfig> parse_transformer_config(std::string_view text, const std::string& name) {
  Json c;
  try {
    c = Json::parse(text);
  } catch (const Json::exception& e) {
    return Error{name + ": not valid JSON: " + json_error_text(e.what())};
  }
  if (!c.is_object()) return Error{name + ": a config.json holds an object"};
  std::vector<std::string> classes;
  if (c.contains("architectures") && c["architectures"].is_array())
    for (const Json& a : c["architectures"])
      if (a.is_string()) classes.push_back(a.get<std::string>());
  const std::string model_type = c.contains("model_type") && c["model_type"].is_string() ? c["model_type"].get<std::string>() : "";
  auto arch = find_architecture(classes, model_type);
  if (!arch) return Error{name + ": " + arch.error()};

  TransformerConfig t;
  t.arch = *arch;
  const bool gpt2 = t.arch->name == "gpt2";
  t.positions = t.arch->positions;
  if (c.contains("poslab_positions")) {  // a model trained by PosLab
    bool known = false;
    for (PositionKind p : {PositionKind::Rope, PositionKind::Learned, PositionKind::Sinusoidal, PositionKind::None,
                           PositionKind::Alibi, PositionKind::T5})
      if (c["poslab_positions"].is_string() && c["poslab_positions"].get<std::string>() == to_string(p)) {
        t.positions = p;
        known = true;
      }
    if (!known) return Error{name + ": \"poslab_positions\" must be one of rope, learned, sinusoidal, none, alibi, t5"};
  }
  auto hidden = whole(c, {"hidden_size", "n_embd"}, -1, name);
  auto layers = whole(c, {"num_hidden_layers", "n_layer"}, -1, name);
  auto heads = whole(c, {"num_attention_heads", "n_head"}, -1, name);
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
  auto inner = whole(c, {"intermediate_size", "n_inner"}, gpt2 ? 4LL * t.hidden : -1, name);
  if (!inner) return Error{inner.error()};
  t.intermediate = *inner;
  auto positions = whole(c, {"max_position_embeddings", "n_positions"}, gpt2 ? -1 : 2048, name);
  if (!positions) return Error{positions.error()};
  t.max_positions = *positions;
  auto eps = real(c, {"rms_norm_eps", "layer_norm_epsilon", "layer_norm_eps"}, 1e-5, name);
  if (!eps) return Error{eps.error()};
  t.norm_eps = *eps;
  const char* act_key = gpt2 ? "activation_function" : "hidden_act";
  std::string act = gpt2 ? "gelu_new" : "silu";
  if (c.contains(act_key) && !c[act_key].is_null()) {
    if (!c[act_key].is_string()) return Error{name + ": \"" + act_key + "\" must be a string"};
    act = c[act_key].get<std::string>();
  }
  auto activation = activation_of(act, name);
  if (!activation) return Error{activation.error()};
  t.activation = *activation;
  auto bias = flag(c, "attention_bias", t.arch->qkv_bias, name);
  if (!bias) return Error{bias.error()};
  t.attention_bias = *bias || t.arch->qkv_bias;
  // Hugging Face's default is tied for GPT-2 and untied for Llama and Qwen2.
  auto tie = flag(c, "tie_word_embeddings", gpt2, name);
  if (!tie) return Error{tie.error()};
  t.tie_embeddings = *tie;

  auto rope = read_rope_config(text, name);
  if (!rope) return Error{rope.error()};
  if (rope->theta) t.rope_theta = *rope->theta;
  if (rope->scaling) t.scaling = *rope->scaling;
  auto partial = real(c, {"partial_rotary_factor"}, 1.0, name);
  if (!partial) return Error{partial.error()};
  if (*partial <= 0.0 || *partial > 1.0) return Error{name + ": partial_rotary_factor must be in (0, 1]"};
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
  return t;
}

}  // namespace poslab

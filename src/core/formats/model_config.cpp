#include "core/formats/model_config.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include "core/formats/files.hpp"
#include "core/model/transformer_config.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

Result<double> number_at(const Json& object, const char* key, const std::string& where) {
  const Json& v = object.at(key);
  if (!v.is_number()) return Error{where + ": \"" + key + "\" must be a number, found " + std::string(v.type_name())};
  return v.get<double>();
}

Result<RopeScalingType> scaling_type(const Json& scaling, const std::string& where) {
  const char* key = scaling.contains("rope_type") ? "rope_type" : "type";  // older configs say "type"
  if (!scaling.contains(key)) return Error{where + ": rope_scaling has no \"rope_type\""};
  if (!scaling.at(key).is_string()) return Error{where + ": rope_scaling." + key + " must be a string"};
  const std::string type = scaling.at(key).get<std::string>();
  if (type == "default") return RopeScalingType::None;
  if (type == "su") return RopeScalingType::LongRope;  // Phi-3's first configs
  for (auto t : {RopeScalingType::None, RopeScalingType::Linear, RopeScalingType::Ntk, RopeScalingType::Dynamic,
                 RopeScalingType::Yarn, RopeScalingType::Llama3, RopeScalingType::LongRope})
    if (to_string(t) == type) return t;
  return Error{where + ": rope_scaling type \"" + type + "\" is not one PosLab knows (linear, ntk, dynamic, yarn, llama3, longrope)"};
}

Result<std::vector<double>> factor_list(const Json& scaling, const char* key, const std::string& where) {
  if (!scaling.contains(key) || !scaling.at(key).is_array()) return Error{where + ": rope_scaling." + key + " must be a list of numbers"};
  std::vector<double> out;
  for (const Json& v : scaling.at(key)) {
    if (!v.is_number()) return Error{where + ": rope_scaling." + key + " must be a list of numbers"};
    out.push_back(v.get<double>());
  }
  return out;
}

// LongRoPE (Phi-3): both factor lists; L is config.json's original_max_position_embeddings when
// it has one (then s = max_position_embeddings / L), and the attention factor √(1 + ln s / ln L)
// unless rope_scaling gives it.
Status read_longrope(const Json& config, const Json& scaling, const std::string& name, RopeScaling& s) {
  auto shorts = factor_list(scaling, "short_factor", name);
  if (!shorts) return Error{shorts.error()};
  auto longs = factor_list(scaling, "long_factor", name);
  if (!longs) return Error{longs.error()};
  s.short_factor = *shorts;
  s.long_factor = *longs;
  const auto length = [&](const Json& holder, const char* key) -> Result<int> {
    auto v = number_at(holder, key, name);
    if (!v) return Error{v.error()};
    if (!(*v >= 1.0 && *v <= 1e9)) return Error{name + ": \"" + key + "\" must be a length from 1 to 10⁹"};
    return static_cast<int>(*v);
  };
  if (config.contains("original_max_position_embeddings") && config.contains("max_position_embeddings")) {
    auto original = length(config, "original_max_position_embeddings");
    auto max = length(config, "max_position_embeddings");
    if (!original) return Error{original.error()};
    if (!max) return Error{max.error()};
    s.original_max_position = *original;
    s.factor = std::max(1.0, static_cast<double>(*max) / *original);
  }
  s.attention_factor = longrope_attention_factor(s.factor, s.original_max_position);
  if (scaling.contains("attention_factor") && !scaling.at("attention_factor").is_null()) {
    auto a = number_at(scaling, "attention_factor", name + ": rope_scaling");
    if (!a) return Error{a.error()};
    s.attention_factor = *a;
  }
  return Ok{};
}

Result<RopeConfig> rope_config_of(const Json& config, const std::string& name) {
  RopeConfig rope;
  if (config.contains("rope_theta")) {
    auto theta = number_at(config, "rope_theta", name);
    if (!theta) return Error{theta.error()};
    // θᵢ = base^(−2i/d) only makes slower frequencies of the faster ones for a base above 1.
    if (!(*theta > 1.0 && std::isfinite(*theta))) return Error{name + ": \"rope_theta\" must be greater than 1"};
    rope.theta = *theta;
  }
  if (config.contains("rope_scaling") && !config.at("rope_scaling").is_null()) {
    const Json& scaling = config.at("rope_scaling");
    if (!scaling.is_object()) return Error{name + ": rope_scaling must be an object or null"};
    auto type = scaling_type(scaling, name);
    if (!type) return Error{type.error()};
    RopeScaling s;
    s.type = *type;
    struct Field {
      const char* key;
      double* target;
    };
    for (const Field& f : {Field{"factor", &s.factor}, Field{"low_freq_factor", &s.low_freq_factor},
                           Field{"high_freq_factor", &s.high_freq_factor}, Field{"beta_fast", &s.beta_fast},
                           Field{"beta_slow", &s.beta_slow}}) {
      if (!scaling.contains(f.key)) continue;
      auto v = number_at(scaling, f.key, name + ": rope_scaling");
      if (!v) return Error{v.error()};
      *f.target = *v;
    }
    // L: inside rope_scaling for Llama 3 and YaRN; else the model's own max_position_embeddings.
    const Json* holder = scaling.contains("original_max_position_embeddings") ? &scaling
                         : config.contains("max_position_embeddings")         ? &config
                                                                              : nullptr;
    if (holder) {
      const char* key = holder == &scaling ? "original_max_position_embeddings" : "max_position_embeddings";
      auto v = number_at(*holder, key, name);
      if (!v) return Error{v.error()};
      if (!(*v >= 1.0 && *v <= 1e9)) return Error{name + ": \"" + key + "\" must be a length from 1 to 10⁹"};
      s.original_max_position = static_cast<int>(*v);
    }
    if (s.type == RopeScalingType::LongRope)
      if (auto l = read_longrope(config, scaling, name, s); !l) return Error{l.error()};
    if (auto valid = validate(s); !valid) return Error{name + ": " + valid.error()};
    rope.scaling = s;
  }
  return rope;
}

}  // namespace

namespace {

// `heads_split_width`: --model-config's heads must split the explorer's width (head_dim × heads =
// hidden_size); a checkpoint's need not (Gemma 3 1B: 4 × 256 of 1152), its forward pass has its own.
Status apply_config(ModelSettings& settings, std::string_view text, const std::string& name, bool heads_split_width) {
  Json config;
  try {
    config = Json::parse(text);
  } catch (const Json::exception& e) {  // parse errors, and numbers too large for a double (406)
    return Error{name + ": not valid JSON: " + json_error_text(e.what())};
  }
  if (!config.is_object()) return Error{name + ": a config.json holds an object"};
  ModelSettings next = settings;
  auto rope = rope_config_of(config, name);
  if (!rope) return Error{rope.error()};
  if (rope->theta) next.base = *rope->theta;
  if (rope->scaling) next.scaling = *rope->scaling;
  // The heads: num_attention_heads splits hidden_size into heads of head_dim (Llama 3.2 1B:
  // 2048 = 32 × 64), and num_key_value_heads (8 there) makes groups of query heads share their
  // keys and values (grouped-query attention).
  // GPT-2's config.json names the heads n_head and the width n_embd.
  const char* heads_key = config.contains("num_attention_heads") ? "num_attention_heads" : "n_head";
  if (config.contains(heads_key)) {
    auto heads = number_at(config, heads_key, name);
    if (!heads) return Error{heads.error()};
    if (*heads < 1 || *heads > 4096 || *heads != std::floor(*heads))
      return Error{name + ": num_attention_heads must be a whole number from 1 to 4096"};
    next.heads = static_cast<int>(*heads);
    if (heads_split_width && config.contains("hidden_size") && config.contains("head_dim")) {
      auto hidden = number_at(config, "hidden_size", name), head_dim = number_at(config, "head_dim", name);
      if (!hidden) return Error{hidden.error()};
      if (!head_dim) return Error{head_dim.error()};
      if (*head_dim * next.heads != *hidden)
        return Error{name + ": head_dim × num_attention_heads ≠ hidden_size; PosLab needs heads that split the width"};
    }
    next.kv_heads = 0;
    if (config.contains("num_key_value_heads") && !config["num_key_value_heads"].is_null()) {
      auto kv = number_at(config, "num_key_value_heads", name);
      if (!kv) return Error{kv.error()};
      if (*kv < 1 || *kv > next.heads || *kv != std::floor(*kv) || next.heads % static_cast<int>(*kv) != 0)
        return Error{name + ": num_key_value_heads must be a whole number that divides num_attention_heads"};
      if (static_cast<int>(*kv) != next.heads) next.kv_heads = static_cast<int>(*kv);
    }
  }
  // A model PosLab trained says which positions it was trained with (train/folder.hpp); the
  // explorer then shows that encoding (or bias) rather than RoPE.
  if (auto it = config.find("poslab_positions"); it != config.end() && it->is_string()) {
    const std::string kind = it->get<std::string>();
    next.bias = BiasKind::None;
    if (kind == "none") next.encoding = EncodingKind::None;
    else if (kind == "sinusoidal") next.encoding = EncodingKind::Sinusoidal;
    else if (kind == "learned") next.encoding = EncodingKind::Learned;
    else if (kind == "rope") next.encoding = EncodingKind::Rope;
    else if (kind == "alibi") next.encoding = EncodingKind::None, next.bias = BiasKind::Alibi;
    else if (kind == "t5") next.encoding = EncodingKind::None, next.bias = BiasKind::T5;
    else return Error{name + ": poslab_positions must be none, sinusoidal, learned, rope, alibi or t5, not \"" + kind + "\""};
    if (auto f = config.find("poslab_rope_fraction"); kind == "rope" && f != config.end()) {
      auto fraction = number_at(config, "poslab_rope_fraction", name);
      if (!fraction) return Error{fraction.error()};
      if (!(*fraction >= 0.0 && *fraction <= 1.0)) return Error{name + ": poslab_rope_fraction must be from 0 to 1"};
      next.rope_fraction = *fraction;
    }
  }
  settings = next;
  return Ok{};
}

}  // namespace

Result<RopeConfig> read_rope_config(std::string_view text, const std::string& name) {
  Json config;
  try {
    config = Json::parse(text);
  } catch (const Json::exception& e) {
    return Error{name + ": not valid JSON: " + json_error_text(e.what())};
  }
  if (!config.is_object()) return Error{name + ": a config.json holds an object"};
  return rope_config_of(config, name);
}

Result<RopeConfig> read_rope_config(const Json& config, const std::string& name) { return rope_config_of(config, name); }

Status apply_model_config(ModelSettings& settings, std::string_view text, const std::string& name) {
  return apply_config(settings, text, name, true);
}

Status load_model_config(ModelSettings& settings, const std::filesystem::path& path) {
  auto bytes = read_whole_file(path, kJsonConfigFile);
  if (!bytes) return Error{bytes.error()};
  return apply_model_config(settings, *bytes, path.string());
}

Status load_checkpoint_config(ModelSettings& settings, const std::filesystem::path& path) {
  ModelSettings next = settings;
  auto text = read_whole_file(path, kJsonConfigFile);
  if (!text) return Error{text.error()};
  if (auto s = apply_config(next, *text, path.string(), false); !s) return s;
  next.rope_style = RopeStyle::Half;
  if (auto c = parse_transformer_config(*text, path.string())) {
    next.rope_style = c->rope_style;
    // Every family's own keys (T5's num_heads, ModernBERT's global_rope_theta) as the model reads them.
    next.heads = c->heads;
    next.kv_heads = c->kv_heads != c->heads ? c->kv_heads : 0;
    if (c->positions == PositionKind::Rope) next.base = c->rope_theta;
    // A relative bias (BLOOM's ALiBi) is the model's positions: on, as the model has them.
    if (c->positions == PositionKind::Alibi) next.encoding = EncodingKind::None, next.bias = BiasKind::Alibi;
    if (c->positions == PositionKind::T5) next.encoding = EncodingKind::None, next.bias = BiasKind::T5;
  }
  settings = next;
  return Ok{};
}

}  // namespace poslab

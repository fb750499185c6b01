#include "core/model/model_config.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include "base/files.hpp"
#include "base/json.hpp"
#include "core/formats/rope_parameters.hpp"
#include "core/model/transformer_config.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

Result<double> number_at(const Json& object, const char* key, const std::string& where) {
  const Json& v = object.at(key);
  if (!v.is_number()) return Error{where + ": \"" + key + "\" must be a number, found " + std::string(v.type_name())};
  return v.get<double>();
}

// The base and scaling of the global layers, in either form config.json writes them
// (core/formats/rope_parameters.hpp).
Result<RopeConfig> rope_config_of(const Json& config, const std::string& name) {
  auto parameters = read_rope_parameters(config, RopeKeyNames{}, name);
  if (!parameters) return Error{parameters.error()};
  RopeConfig rope;
  rope.theta = parameters->global.theta.value;
  rope.scaling = parameters->global.scaling.value;
  return rope;
}

}  // namespace

namespace {

// `heads_split_width`: --model-config's heads must split the explorer's width (head_dim × heads =
// hidden_size); a checkpoint's need not (Gemma 3 1B: 4 × 256 of 1152), its forward pass has its own.
Status apply_config(ModelSettings& settings, std::string_view text, const std::string& name, bool heads_split_width) {
  auto parsed = parse_json_object(text, name, "a config.json holds an object");
  if (!parsed) return Error{parsed.error()};
  const Json& config = *parsed;
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
  auto config = parse_json_object(text, name, "a config.json holds an object");
  if (!config) return Error{config.error()};
  return rope_config_of(*config, name);
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

Status load_checkpoint_config(ModelSettings& settings, const std::filesystem::path& path, ModelPositions positions) {
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
    // The base and scaling as the model reads them: a wrapper keeps them in text_config, transformers
    // 5 in rope_parameters, where the top-level keys above do not look.
    if (c->positions == PositionKind::Rope) next.base = c->rope_theta, next.scaling = c->scaling;
    // A relative bias (BLOOM's ALiBi) is the model's positions: on, as the model has them.
    const bool apply = positions == ModelPositions::Apply;
    if (apply && c->positions == PositionKind::Alibi) next.encoding = EncodingKind::None, next.bias = BiasKind::Alibi;
    if (apply && c->positions == PositionKind::T5) next.encoding = EncodingKind::None, next.bias = BiasKind::T5;
  }
  settings = next;
  return Ok{};
}

}  // namespace poslab

#include "core/formats/rope_parameters.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/number_text.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

bool present(const Json& o, const std::string& key) { return o.contains(key) && !o.at(key).is_null(); }

// "where.key", or the key alone at the top level (where is empty).
std::string path(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }

Result<double> number(const Json& o, const std::string& key, const std::string& where) {
  const Json& v = o.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    return Error{path(where, key) + " must be a number, found " + v.dump()};
  return v.get<double>();
}

Result<int> length(const Json& o, const std::string& key, const std::string& where) {
  auto v = number(o, key, where);
  if (!v) return Error{v.error()};
  if (!(*v >= 1.0 && *v <= 1e9)) return Error{path(where, key) + " must be a length from 1 to 10⁹"};
  return static_cast<int>(*v);
}

Result<std::vector<double>> numbers(const Json& o, const std::string& key, const std::string& where) {
  if (!o.at(key).is_array()) return Error{where + "." + key + " must be a list of numbers"};
  std::vector<double> out;
  for (const Json& v : o.at(key)) {
    if (!v.is_number()) return Error{where + "." + key + " must be a list of numbers"};
    out.push_back(v.get<double>());
  }
  return out;
}

Result<RopeScalingType> type_of(const Json& d, const std::string& where) {
  const char* key = d.contains("rope_type") ? "rope_type" : d.contains("type") ? "type" : nullptr;
  if (!key) return RopeScalingType::None;  // transformers' default
  if (!d.at(key).is_string()) return Error{where + "." + key + " must be a string"};
  const std::string type = d.at(key).get<std::string>();
  if (type == "default") return RopeScalingType::None;
  if (type == "su") return RopeScalingType::LongRope;  // Phi-3's first configs
  for (auto t : {RopeScalingType::Linear, RopeScalingType::Ntk, RopeScalingType::Dynamic, RopeScalingType::Yarn,
                 RopeScalingType::Llama3, RopeScalingType::LongRope})
    if (to_string(t) == type) return t;
  if (type == "mrope") return RopeScalingType::None;  // Qwen2-VL's first configs: default RoPE with mrope_section
  return Error{where + "." + key + " \"" + type +
               "\" is not supported (PosLab reads default, linear, dynamic, yarn, llama3, longrope, proportional)"};
}

// The keys each type needs, as transformers' validation requires them (a missing factor is an
// error there, never 1).
Status require(const Json& d, RopeScalingType type, const std::string& where) {
  std::vector<const char*> needed;
  switch (type) {
    case RopeScalingType::Linear:
    case RopeScalingType::Ntk:
    case RopeScalingType::Dynamic:
    case RopeScalingType::Yarn: needed = {"factor"}; break;
    case RopeScalingType::Llama3: needed = {"factor", "low_freq_factor", "high_freq_factor"}; break;
    case RopeScalingType::LongRope: needed = {"short_factor", "long_factor"}; break;
    case RopeScalingType::None: break;
  }
  for (const char* k : needed)
    if (!present(d, k)) return Error{where + " of type " + std::string(to_string(type)) + " needs \"" + k + "\""};
  return Ok{};
}

// HF's get_mscale: 0.1·m·ln s + 1 (1 when nothing is stretched).
double mscale(double s, double m) { return s <= 1.0 ? 1.0 : 0.1 * m * std::log(s) + 1.0; }

// YaRN's own keys: an explicit attention factor, DeepSeek's mscale pair (their ratio is the
// factor), and truncate (GPT-OSS: false keeps the correction range unrounded).
Status read_yarn_extras(const Json& d, const std::string& where, RopeScaling& s) {
  if (present(d, "truncate")) {
    if (!d.at("truncate").is_boolean()) return Error{where + ".truncate must be true or false"};
    s.yarn_truncate = d.at("truncate").get<bool>();
  }
  double m = 0.0, m_all = 0.0;
  for (auto [key, target] : {std::pair{"mscale", &m}, std::pair{"mscale_all_dim", &m_all}})
    if (present(d, key)) {
      auto v = number(d, key, where);
      if (!v) return Error{v.error()};
      *target = *v;
    }
  if (m != 0.0 && m_all != 0.0) {
    s.attention_factor = mscale(s.factor, m) / mscale(s.factor, m_all);
    s.attention_given = true;
  }
  return Ok{};
}

// M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): three sections of rotary pairs, for t, h and w.
Status read_mrope(const Json& d, const std::string& where, RopeLayerSettings& spec) {
  if (present(d, "mrope_interleaved")) {
    if (!d.at("mrope_interleaved").is_boolean()) return Error{where + ".mrope_interleaved must be true or false"};
    spec.mrope_interleaved = d.at("mrope_interleaved").get<bool>();
  }
  if (!present(d, "mrope_section")) {
    if (spec.mrope_interleaved) return Error{where + ".mrope_interleaved needs mrope_section"};
    return Ok{};
  }
  const Json& m = d.at("mrope_section");
  if (!m.is_array() || m.size() != 3)
    return Error{where + ".mrope_section must list three section sizes (t, h, w), found " + m.dump()};
  for (const Json& v : m) {
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 100000)
      return Error{where + ".mrope_section must list three whole numbers, found " + m.dump()};
    spec.mrope_section.push_back(static_cast<int>(v.get<long long>()));
  }
  spec.mrope_from = where + ".mrope_section";
  return Ok{};
}

// The keys shared by every type's dictionary, and their targets in RopeScaling.
Status read_numbers(const Json& d, const std::string& where, RopeScaling& s) {
  struct Field {
    const char* key;
    double* target;
  };
  for (const Field& f : {Field{"factor", &s.factor}, Field{"low_freq_factor", &s.low_freq_factor},
                         Field{"high_freq_factor", &s.high_freq_factor}, Field{"beta_fast", &s.beta_fast},
                         Field{"beta_slow", &s.beta_slow}}) {
    if (!present(d, f.key)) continue;
    auto v = number(d, f.key, where);
    if (!v) return Error{v.error()};
    *f.target = *v;
  }
  return Ok{};
}

// L, the length the model was trained at: the top-level original_max_position_embeddings first
// where transformers gives it priority (Phi-3), then the dictionary's, then max_position_embeddings.
Status read_original_length(const Json& config, const Json& d, const std::string& where, RopeScaling& s) {
  const bool stretching = s.type == RopeScalingType::Yarn || s.type == RopeScalingType::Llama3 || s.type == RopeScalingType::LongRope;
  if (stretching && present(config, "original_max_position_embeddings") && present(d, "original_max_position_embeddings")) {
    auto top = length(config, "original_max_position_embeddings", "");
    auto inner = length(d, "original_max_position_embeddings", where);
    if (!top) return Error{top.error()};
    if (!inner) return Error{inner.error()};
    if (*top != *inner)
      return Error{"original_max_position_embeddings (" + std::to_string(*top) + ") and " + where +
                   ".original_max_position_embeddings (" + std::to_string(*inner) + ") disagree"};
  }
  if (present(d, "original_max_position_embeddings")) {
    auto v = length(d, "original_max_position_embeddings", where);
    if (!v) return Error{v.error()};
    s.original_max_position = *v;
  } else if (present(config, "max_position_embeddings")) {
    auto v = length(config, "max_position_embeddings", "");
    if (!v) return Error{v.error()};
    s.original_max_position = *v;
  }
  return Ok{};
}

// LongRoPE's factor lists, and s and its attention factor: transformers 4 takes s from
// max_position_embeddings / original_max_position_embeddings whenever config.json has both; 5
// takes the dictionary's factor first.
Status read_longrope(const Json& config, const Json& d, const std::string& where, bool v5, RopeScaling& s) {
  auto shorts = numbers(d, "short_factor", where);
  if (!shorts) return Error{shorts.error()};
  auto longs = numbers(d, "long_factor", where);
  if (!longs) return Error{longs.error()};
  s.short_factor = *shorts;
  s.long_factor = *longs;
  if (present(config, "original_max_position_embeddings") && !present(d, "original_max_position_embeddings")) {
    auto original = length(config, "original_max_position_embeddings", "");
    if (!original) return Error{original.error()};
    s.original_max_position = *original;
  }
  const bool factor_given = v5 && present(d, "factor");
  if (!factor_given && present(config, "max_position_embeddings") &&
      (present(config, "original_max_position_embeddings") || (v5 && present(d, "original_max_position_embeddings")))) {
    auto max = length(config, "max_position_embeddings", "");
    if (!max) return Error{max.error()};
    s.factor = std::max(1.0, static_cast<double>(*max) / s.original_max_position);
  }
  s.attention_factor = longrope_attention_factor(s.factor, s.original_max_position);
  return Ok{};
}

// One RoPE dictionary (rope_parameters, one of its layer types' entries, or rope_scaling): its
// base, scaling and rotated share, every key read or refused by name.
// Its messages start with the dictionary's path; the caller names the file.
Result<RopeLayerSettings> read_dictionary(const Json& config, const Json& d, const std::string& where, bool v5) {
  if (!d.is_object()) return Error{where + " must be an object"};
  const auto& known = rope_dictionary_keys();
  for (const auto& [key, value] : d.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end())
      return Error{where + "." + key + " is a key PosLab does not read (it may change positions); PosLab reads " +
                   [&] {
                     std::string list;
                     for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
                     return list;
                   }()};
  }
  RopeLayerSettings spec;
  // Gemma 4's "proportional" is default RoPE (linear's division when it gives a factor) with a
  // share of its pairs turning: read as that type, the share kept apart.
  Json plain = d;
  if (d.contains("rope_type") && d.at("rope_type") == "proportional") {
    spec.proportional = true;
    plain["rope_type"] = present(d, "factor") ? "linear" : "default";
  }
  if (present(d, "rope_theta")) {
    auto t = number(d, "rope_theta", where);
    if (!t) return Error{t.error()};
    spec.theta = {*t, where + ".rope_theta"};
  }
  if (present(d, "partial_rotary_factor")) {
    auto p = number(d, "partial_rotary_factor", where);
    if (!p) return Error{p.error()};
    spec.partial = {*p, where + ".partial_rotary_factor"};
  }
  if (auto m = read_mrope(d, where, spec); !m) return Error{m.error()};
  auto type = type_of(plain, where);
  if (!type) return Error{type.error()};
  if (auto s = require(d, *type, where); !s) return Error{s.error()};
  RopeScaling s;
  s.type = *type;
  const bool yarn = s.type == RopeScalingType::Yarn, longrope = s.type == RopeScalingType::LongRope;
  for (const char* k : {"mscale", "mscale_all_dim", "truncate"})
    if (present(d, k) && !yarn) return Error{where + "." + k + " belongs to rope_type yarn, not " + std::string(to_string(s.type))};
  if (present(d, "attention_factor") && !yarn && !longrope)
    return Error{where + ".attention_factor belongs to rope_type yarn or longrope, not " + std::string(to_string(s.type))};
  if (auto r = read_numbers(d, where, s); !r) return Error{r.error()};
  if (auto r = read_original_length(config, d, where, s); !r) return Error{r.error()};
  if (longrope)
    if (auto r = read_longrope(config, d, where, v5, s); !r) return Error{r.error()};
  if (yarn)
    if (auto r = read_yarn_extras(d, where, s); !r) return Error{r.error()};
  if (present(d, "attention_factor")) {
    auto a = number(d, "attention_factor", where);
    if (!a) return Error{a.error()};
    s.attention_factor = *a;
    s.attention_given = true;
  }
  if (s.type != RopeScalingType::None) {
    if (auto valid = validate(s); !valid) return Error{where + ": " + valid.error()};
    spec.scaling = {s, where};
  }
  return spec;
}

// The first of `keys` present at the top level, as a number; two of them present (GPT-NeoX's
// rotary_emb_base beside rope_theta) must agree, else a refusal naming both.
Result<Sourced<double>> top_level(const Json& config, const std::vector<std::string>& keys, const std::string& name) {
  Sourced<double> found;
  for (const std::string& k : keys)
    if (present(config, k)) {
      auto v = number(config, k, name);
      if (!v) return Error{name + ": \"" + k + "\" must be a number"};
      if (!found) {
        found = {*v, k};
      } else if (*v != *found.value) {
        return Error{name + ": " + found.from + " (" + number_text(*found.value) + ") and " + k + " (" + number_text(*v) +
                     ") disagree; PosLab will not guess which one the model uses"};
      }
    }
  return found;
}

// Both forms give a value: the same one, or a refusal naming both.
Status agree(const Sourced<double>& a, const Sourced<double>& b, const std::string& name) {
  if (!a || !b || *a.value == *b.value) return Ok{};
  return Error{name + ": " + a.from + " (" + number_text(*a.value) + ") and " + b.from + " (" + number_text(*b.value) +
               ") disagree; PosLab will not guess which one the model uses"};
}

// The legacy keys at the top level: rope_theta, rope_scaling and partial_rotary_factor (under
// the family's names), and the local layers' base.
Result<RopeParameters> read_legacy(const Json& config, const RopeKeyNames& keys, const std::string& name) {
  RopeParameters r;
  if (present(config, "rope_scaling")) {
    auto spec = read_dictionary(config, config.at("rope_scaling"), "rope_scaling", false);
    if (!spec) return Error{name + ": " + spec.error()};
    if (spec->theta || spec->partial)
      return Error{name + ": rope_scaling." + (spec->theta ? "rope_theta" : "partial_rotary_factor") +
                   " belongs at the top level (or in rope_parameters)"};
    r.global.scaling = spec->scaling;
    r.global.mrope_section = spec->mrope_section;
    r.global.mrope_interleaved = spec->mrope_interleaved;
    r.global.mrope_from = spec->mrope_from;
  }
  auto theta = top_level(config, keys.theta, name);
  auto partial = top_level(config, keys.partial, name);
  auto local = top_level(config, keys.local_theta, name);
  for (const auto* v : {&theta, &partial, &local})
    if (!*v) return Error{v->error()};
  r.global.theta = *theta;
  r.global.partial = *partial;
  if (*local) {
    r.local = RopeLayerSettings{};
    r.local->theta = *local;
  }
  return r;
}

// rope_parameters: one dictionary, or one per layer type (its keys are layer types, as
// transformers tells the two apart).
bool nested_by_layer_type(const Json& config, const Json& rp) {
  static const std::set<std::string> kinds = {"full_attention", "sliding_attention", "chunked_attention", "linear_attention"};
  std::set<std::string> types(kinds);
  if (present(config, "layer_types") && config.at("layer_types").is_array())
    for (const Json& t : config.at("layer_types"))
      if (t.is_string()) types.insert(t.get<std::string>());
  if (rp.empty()) return false;
  return std::all_of(rp.items().begin(), rp.items().end(), [&](const auto& item) { return types.count(item.key()) > 0; });
}

Result<RopeParameters> read_nested(const Json& config, const Json& rp, const std::string& name) {
  RopeParameters r;
  for (const auto& [type, entry] : rp.items()) {
    if (type == "full_attention" || type == "sliding_attention") continue;
    return Error{name + ": rope_parameters." + type + ": layers of type \"" + type + "\" are not supported"};
  }
  if (present(config, "layer_types") && config.at("layer_types").is_array())
    for (const Json& t : config.at("layer_types"))
      if (t.is_string() && !present(rp, t.get<std::string>()))
        return Error{name + ": rope_parameters has no entry for the layer type \"" + t.get<std::string>() + "\""};
  std::optional<RopeLayerSettings> full, sliding;
  for (auto [key, target] : {std::pair{"full_attention", &full}, std::pair{"sliding_attention", &sliding}}) {
    if (!present(rp, key)) continue;
    auto spec = read_dictionary(config, rp.at(key), std::string("rope_parameters.") + key, true);
    if (!spec) return Error{name + ": " + spec.error()};
    *target = *spec;
  }
  if (!full && !sliding) return Error{name + ": rope_parameters names no layer type"};
  r.global = full ? *full : *sliding;
  if (full && sliding) r.local = *sliding;
  return r;
}

// The sliding layers' RoPE as PosLab runs it: their own base, unscaled, on the global layers' share.
Status check_local(RopeParameters& r, const std::string& name) {
  if (!r.local) return Ok{};
  if (r.local->scaling)
    return Error{name + ": " + r.local->scaling.from + ": a scaled RoPE on the sliding layers is not supported"};
  // Gemma 4: the full layers' proportional share is theirs; the sliding layers rotate whole heads.
  if (r.global.proportional) return Ok{};
  // A rotated share given once (transformers 4's top-level key) is every layer's.
  const double global_partial = r.global.partial ? *r.global.partial.value : 1.0;
  const double local_partial = r.local->partial ? *r.local->partial.value : global_partial;
  if (global_partial != local_partial)
    return Error{name + ": the sliding and full layers rotate different shares of a head (partial_rotary_factor " + number_text(local_partial) +
                 " against " + number_text(global_partial) + "), which PosLab does not support"};
  return Ok{};
}

// transformers 5's form, with the legacy keys filling what it leaves out (as its
// standardize_rope_params does) and refused where they disagree with it.
Result<RopeParameters> read_v5(const Json& config, const Json& rp, const RopeParameters& legacy, const std::string& name) {
  if (!rp.is_object()) return Error{name + ": rope_parameters must be an object or null"};
  Result<RopeParameters> parsed = nested_by_layer_type(config, rp) ? read_nested(config, rp, name) : [&]() -> Result<RopeParameters> {
    auto spec = read_dictionary(config, rp, "rope_parameters", true);
    if (!spec) return Error{name + ": " + spec.error()};
    RopeParameters one;
    one.global = *spec;
    return one;
  }();
  if (!parsed) return parsed;
  RopeParameters r = *parsed;
  r.v5 = true;
  for (auto [v5_value, old] : {std::pair{&r.global.theta, &legacy.global.theta}, std::pair{&r.global.partial, &legacy.global.partial}}) {
    if (auto s = agree(*v5_value, *old, name); !s) return Error{s.error()};
    if (!*v5_value) *v5_value = *old;
  }
  if (legacy.global.scaling && !(r.global.scaling && *r.global.scaling.value == *legacy.global.scaling.value))
    return Error{name + ": rope_scaling and rope_parameters disagree; PosLab will not guess which one the model uses"};
  if (legacy.local && legacy.local->theta) {
    if (!r.local) {
      r.local = legacy.local;
    } else {
      if (auto s = agree(r.local->theta, legacy.local->theta, name); !s) return Error{s.error()};
      if (!r.local->theta) r.local->theta = legacy.local->theta;
    }
  }
  return r;
}

}  // namespace

const std::vector<std::string>& rope_dictionary_keys() {
  static const std::vector<std::string> keys = {
      "rope_type", "type", "rope_theta", "partial_rotary_factor", "factor", "original_max_position_embeddings",
      "attention_factor", "beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor", "short_factor",
      "long_factor", "mscale", "mscale_all_dim", "truncate", "mrope_section", "mrope_interleaved"};
  return keys;
}

Result<RopeParameters> read_rope_parameters(const Json& config, const RopeKeyNames& keys, const std::string& name) {
  auto legacy = read_legacy(config, keys, name);
  if (!legacy) return legacy;
  Result<RopeParameters> r = present(config, "rope_parameters") ? read_v5(config, config.at("rope_parameters"), *legacy, name)
                                                                 : std::move(legacy);
  if (!r) return r;
  if (r->global.theta && !(*r->global.theta.value > 1.0))
    return Error{name + ": \"" + r->global.theta.from + "\" must be greater than 1"};
  if (r->local && r->local->theta && !(*r->local->theta.value > 1.0))
    return Error{name + ": \"" + r->local->theta.from + "\" must be greater than 1"};
  if (auto s = check_local(*r, name); !s) return Error{s.error()};
  return r;
}

}  // namespace poslab

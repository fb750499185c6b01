#include "core/session.hpp"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "core/options.hpp"
#include "base/files.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string flag(bool v) { return v ? "true" : "false"; }

// How an option's value is written in JSON, from its placeholder in the option table.
enum class JsonKind { Flag, Number, Text };
JsonKind kind_of(const StateOption& option) {
  static const std::set<std::string_view> numeric = {"N", "B", "P", "S", "L", "X", "H", "K"};
  if (option.value.empty()) return JsonKind::Flag;
  return numeric.contains(option.value) ? JsonKind::Number : JsonKind::Text;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> state_to_options(const State& s) {
  const ModelSettings& m = s.model;
  const RopeScaling& sc = m.scaling;
  std::vector<std::pair<std::string, std::string>> out = {
      {"--embeddings", s.embeddings_path},
      {"--vocab", s.vocab_path},
      {"--tensor", s.tensor_name},
      {"--sentence", m.sentence},
      {"--encoding", std::string(to_string(m.encoding))},
      {"--binary-values", std::string(to_string(m.binary_values))},
      {"--learned-max", std::to_string(m.learned_max)},
      {"--learned-file", m.learned_file},
      {"--rope-style", std::string(to_string(m.rope_style))},
      {"--base", number(m.base)},
      {"--rotary-dim", std::to_string(m.rotary_dim)},
      {"--rope-fraction", number(m.rope_fraction)},
      {"--rope-scaling", std::string(to_string(sc.type))},
      {"--factor", number(sc.factor)},
      {"--original-max-position", std::to_string(sc.original_max_position)},
      {"--low-freq-factor", number(sc.low_freq_factor)},
      {"--high-freq-factor", number(sc.high_freq_factor)},
      {"--beta-fast", number(sc.beta_fast)},
      {"--beta-slow", number(sc.beta_slow)},
      {"--rope-2d", std::string(to_string(m.rope_2d))},
      {"--cls", flag(m.cls)},
      {"--bias", std::string(to_string(m.bias))},
      {"--buckets", std::to_string(m.buckets)},
      {"--max-distance", std::to_string(m.max_distance)},
      {"--clip", std::to_string(m.clip)},
      {"--cross-sentence", m.cross_sentence},
      {"--heads", std::to_string(m.heads)},
      {"--kv-heads", std::to_string(m.kv_heads)},
      {"--projection", std::string(to_string(m.projection))},
      {"--sigma", number(m.sigma)},
      {"--seed", std::to_string(m.seed)},
      {"--causal", flag(m.causal)},
      {"--pad-to", std::to_string(m.pad_to)},
      {"--head", s.view.mean_heads ? std::string("mean") : std::to_string(s.view.head)},
      {"--value", std::string(to_string(s.view.value))},
      {"--shift-k", std::to_string(s.view.shift_k)},
      {"--layer", std::to_string(s.view.layer)},
      {"--layout", s.view.mrope_layout},
      {"--position-shift", std::to_string(s.model.position_shift)},
      {"--window", m.window < 0 ? std::string("model") : m.window == 0 ? std::string("none") : std::to_string(m.window)},
      {"--local-base", m.local_base > 0.0 ? number(m.local_base) : std::string("model")},
      {"--rope-factors", std::string(to_string(m.rope_factors))},
      {"--alibi-scale", number(m.alibi_scale)},
      {"--stack", std::string(to_string(m.stack))},
      {"--target", m.target},
      {"--permute", std::to_string(s.view.permutation)},
      {"--rope-m", std::to_string(s.view.rope_m)},
      {"--rope-n", std::to_string(s.view.rope_n)},
      {"--rope-pair", std::to_string(s.view.rope_pair)},
      {"--image-grid", std::to_string(s.view.image_width) + "x" + std::to_string(s.view.image_height)},
      {"--patch", std::to_string(s.view.patch_x) + "," + std::to_string(s.view.patch_y)},
      {"--token", std::to_string(s.view.trajectory_token)},
      {"--positions", std::to_string(s.view.trajectory_positions)},
      {"--plane", std::string(to_string(s.view.trajectory_plane))},
      {"--dims", std::to_string(s.view.trajectory_dim_x) + "," + std::to_string(s.view.trajectory_dim_y)},
      {"--backend", std::string(to_string(s.backend))},
      {"--no-check", flag(!s.check_against_cpu)},
  };
  if (m.grid_width > 0) out.emplace_back("--grid", std::to_string(m.grid_width) + "x" + std::to_string(m.grid_height));
  return out;
}

std::string session_json(const State& state) {
  Json values = Json::object();
  for (const auto& [name, value] : state_to_options(state)) {
    const StateOption* option = find_state_option(name);
    const std::string key = name.substr(2);
    switch (kind_of(*option)) {
      case JsonKind::Flag: values[key] = value == "true"; break;
      case JsonKind::Number: values[key] = std::stod(value); break;
      case JsonKind::Text: values[key] = value; break;
    }
  }
  Json doc = {{"poslab_session", kSessionVersion}, {"state", values}};
  return doc.dump(2) + "\n";
}

Result<LoadedSession> parse_session(std::string_view text, const std::string& name) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {  // parse errors, and numbers too large for a double (406)
    return Error{name + ": not valid JSON: " + json_error_text(e.what())};
  }
  if (!doc.is_object() || !doc.contains("poslab_session") || !doc["poslab_session"].is_number_integer())
    return Error{name + ": not a PosLab session (no \"poslab_session\" version)"};
  if (doc["poslab_session"].get<long long>() > kSessionVersion)
    return Error{name + ": written by a newer PosLab (session version " + std::to_string(doc["poslab_session"].get<long long>()) +
                 ")"};
  LoadedSession loaded;
  for (const auto& [key, value] : doc.items())
    if (key != "poslab_session" && key != "state") loaded.unknown_keys.push_back(key);
  if (!doc.contains("state")) return loaded;
  if (!doc["state"].is_object()) return Error{name + ": \"state\" must be an object"};
  for (const auto& [key, value] : doc["state"].items()) {
    const StateOption* option = find_state_option("--" + key);
    if (!option || key == "model-config") {
      loaded.unknown_keys.push_back("state." + key);
      continue;
    }
    const std::string where = name + ": \"" + key + "\"";
    std::string text_value;
    switch (kind_of(*option)) {
      case JsonKind::Flag:
        if (!value.is_boolean()) return Error{where + " must be true or false"};
        if (!value.get<bool>()) continue;  // false is every flag's default
        break;
      case JsonKind::Number:
        if (!value.is_number()) return Error{where + " must be a number"};
        text_value = value.is_number_integer() ? std::to_string(value.get<long long>()) : number(value.get<double>());
        break;
      case JsonKind::Text:
        if (!value.is_string()) return Error{where + " must be a string"};
        text_value = value.get<std::string>();
        break;
    }
    if (auto applied = option->apply(loaded.state, text_value); !applied) return Error{name + ": " + applied.error()};
  }
  return loaded;
}

Result<LoadedSession> load_session(const std::filesystem::path& path) {
  auto bytes = read_whole_file(path, kSessionFile);
  if (!bytes) return Error{bytes.error()};
  return parse_session(*bytes, path.string());
}

std::filesystem::path config_dir() {
  namespace fs = std::filesystem;
  auto absolute_from = [](const char* variable) {
    const char* value = std::getenv(variable);
    return value && *value && fs::path(value).is_absolute() ? fs::path(value) : fs::path();
  };
  fs::path base = absolute_from("XDG_CONFIG_HOME");
  if (base.empty()) {
    const fs::path home = absolute_from("HOME");
    base = home.empty() ? fs::temp_directory_path() : home / ".config";
  }
  return base / "poslab";
}

}  // namespace poslab

#include "core/session.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "core/options.hpp"
#include "base/files.hpp"
#include "base/json.hpp"
#include "base/number_text.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

std::string flag(bool v) { return v ? "true" : "false"; }

// How an option's value is written in JSON, from its placeholder in the option table.
enum class JsonKind { Flag, Number, Text };
JsonKind kind_of(const StateOption& option) {
  static const std::set<std::string_view> numeric = {"N", "B", "P", "S", "L", "X", "H", "K"};
  if (option.value.empty()) return JsonKind::Flag;
  return numeric.contains(option.value) ? JsonKind::Number : JsonKind::Text;
}

namespace fs = std::filesystem;

// The options whose values are paths the state reads.
bool is_path_option(std::string_view name) {
  return name == "--embeddings" || name == "--vocab" || name == "--learned-file" || name == "--model" || name == "--text";
}

// `path` as the session file in `folder` will name it: relative to that folder when it can be.
std::string relative_to(const std::string& path, const fs::path& folder) {
  if (path.empty()) return path;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  const fs::path base = fs::absolute(folder, ec).lexically_normal();
  if (ec) return path;
  const fs::path relative = absolute.lexically_relative(base);
  return relative.empty() ? absolute.string() : relative.generic_string();
}

// A path read from a session in `folder`: relative to that folder. A session written before
// paths were stored so (relative to the working folder) still opens when only that one exists;
// when neither does, the path beside the session is kept, so that an error names where it was looked for.
// A --model that is neither is kept as written: it may be a Hub name (ORG/NAME@COMMIT).
std::string resolved_from(const std::string& path, const fs::path& folder, bool may_be_a_name) {
  if (path.empty() || folder.empty() || fs::path(path).is_absolute()) return path;
  std::error_code ec;
  const fs::path beside = (fs::absolute(folder, ec) / path).lexically_normal();
  if (fs::exists(beside, ec)) return beside.string();
  if (fs::exists(path, ec) || may_be_a_name) return path;
  return beside.string();
}

// "model" before every other key: a model's config.json sets the RoPE and heads that the
// session's own values then refine.
std::vector<std::pair<std::string, const Json*>> keys_in_order(const Json& state) {
  std::vector<std::pair<std::string, const Json*>> out;
  for (const auto& [key, value] : state.items()) out.emplace_back(key, &value);
  std::stable_partition(out.begin(), out.end(), [](const auto& kv) { return kv.first == "model"; });
  return out;
}

}  // namespace

std::string hub_name_of_snapshot(const fs::path& folder) {
  const fs::path normal = folder.lexically_normal();
  const fs::path snapshot = normal.filename().empty() ? normal.parent_path() : normal;  // a trailing slash
  const std::string commit = snapshot.filename().string();
  const fs::path repo = snapshot.parent_path().parent_path();
  const std::string repo_folder = repo.filename().string();
  const bool is_commit = commit.size() == 40 && std::all_of(commit.begin(), commit.end(), [](char c) {
                           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                         });
  if (!is_commit || snapshot.parent_path().filename() != "snapshots" || !repo_folder.starts_with("models--")) return "";
  const std::string rest = repo_folder.substr(8);
  const auto split = rest.find("--");
  if (split == std::string::npos || split == 0 || split + 2 >= rest.size()) return "";
  return rest.substr(0, split) + "/" + rest.substr(split + 2) + "@" + commit;
}

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
      {"--base", number_text(m.base, 17)},
      {"--rotary-dim", std::to_string(m.rotary_dim)},
      {"--rope-fraction", number_text(m.rope_fraction, 17)},
      {"--rope-scaling", std::string(to_string(sc.type))},
      {"--factor", number_text(sc.factor, 17)},
      {"--original-max-position", std::to_string(sc.original_max_position)},
      {"--low-freq-factor", number_text(sc.low_freq_factor, 17)},
      {"--high-freq-factor", number_text(sc.high_freq_factor, 17)},
      {"--beta-fast", number_text(sc.beta_fast, 17)},
      {"--beta-slow", number_text(sc.beta_slow, 17)},
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
      {"--sigma", number_text(m.sigma, 17)},
      {"--seed", std::to_string(m.seed)},
      {"--causal", flag(m.causal)},
      {"--pad-to", std::to_string(m.pad_to)},
      {"--head", s.view.mean_heads ? std::string("mean") : std::to_string(s.view.head)},
      {"--value", std::string(to_string(s.view.value))},
      {"--shift-k", std::to_string(s.view.shift_k)},
      {"--layer", std::to_string(s.view.layer)},
      {"--layout", s.view.mrope_layout},
      {"--query", s.view.query < 0 ? std::string("all") : std::to_string(s.view.query)},
      {"--text", s.view.probe_text},
      {"--position-shift", std::to_string(s.model.position_shift)},
      {"--window", m.window < 0 ? std::string("model") : m.window == 0 ? std::string("none") : std::to_string(m.window)},
      {"--chunk", m.chunk < 0 ? std::string("model") : m.chunk == 0 ? std::string("none") : std::to_string(m.chunk)},
      {"--streaming", to_string(m.streaming)},
      {"--sinks", m.sinks ? std::string("on") : std::string("off")},
      {"--local-base", m.local_base > 0.0 ? number_text(m.local_base, 17) : std::string("model")},
      {"--rope-factors", std::string(to_string(m.rope_factors))},
      {"--alibi-scale", number_text(m.alibi_scale, 17)},
      {"--drop-pairs", to_string(m.drop_pairs)},
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
      {"--precision", std::string(to_string(s.precision))},
  };
  if (m.grid_width > 0) out.emplace_back("--grid", std::to_string(m.grid_width) + "x" + std::to_string(m.grid_height));
  return out;
}

std::string session_json(const State& state, const fs::path& session_file) {
  Json values = Json::object();
  const std::string hub_name = session_file.empty() ? std::string() : hub_name_of_snapshot(state.embeddings_path);
  for (auto [name, value] : state_to_options(state)) {
    const StateOption* option = find_state_option(name);
    std::string key = name.substr(2);
    if (name == "--embeddings" && !hub_name.empty()) key = "model", value = hub_name;  // what reopens it anywhere
    else if (!session_file.empty() && is_path_option(name)) value = relative_to(value, session_file.parent_path());
    switch (kind_of(*option)) {
      case JsonKind::Flag: values[key] = value == "true"; break;
      case JsonKind::Number: values[key] = std::stod(value); break;
      case JsonKind::Text: values[key] = value; break;
    }
  }
  Json doc = {{"poslab_session", kSessionVersion}, {"state", values}};
  return doc.dump(2) + "\n";
}

Result<LoadedSession> parse_session(std::string_view text, const std::string& name, const fs::path& folder) {
  auto parsed = parse_json(text, name);
  if (!parsed) return Error{parsed.error()};
  Json& doc = *parsed;
  const Json* version = json_member(doc, "poslab_session", &Json::is_number_integer);
  if (!version) return Error{name + ": not a PosLab session (no \"poslab_session\" version)"};
  if (version->get<long long>() > kSessionVersion)
    return Error{name + ": written by a newer PosLab (session version " + std::to_string(version->get<long long>()) + ")"};
  LoadedSession loaded;
  for (const auto& [key, value] : doc.items())
    if (key != "poslab_session" && key != "state") loaded.unknown_keys.push_back(key);
  if (!doc.contains("state")) return loaded;
  if (!doc["state"].is_object()) return Error{name + ": \"state\" must be an object"};
  for (const auto& [key, value_pointer] : keys_in_order(doc["state"])) {
    const Json& value = *value_pointer;
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
        text_value = value.is_number_integer() ? std::to_string(value.get<long long>()) : number_text(value.get<double>(), 17);
        break;
      case JsonKind::Text:
        if (!value.is_string()) return Error{where + " must be a string"};
        text_value = value.get<std::string>();
        if (is_path_option(option->name)) text_value = resolved_from(text_value, folder, option->name == "--model");
        break;
    }
    if (auto applied = option->apply(loaded.state, text_value); !applied) return Error{name + ": " + applied.error()};
  }
  return loaded;
}

Result<LoadedSession> load_session(const std::filesystem::path& path) {
  auto bytes = read_whole_file(path, kSessionFile);
  if (!bytes) return Error{bytes.error()};
  return parse_session(*bytes, path.string(), path.parent_path().empty() ? fs::path(".") : path.parent_path());
}

std::filesystem::path config_dir() { return xdg_home(XdgFolder::Config) / "poslab"; }

}  // namespace poslab

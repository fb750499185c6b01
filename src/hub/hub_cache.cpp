#include "hub/hub_cache.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "base/atomic_stream.hpp"  // unique_temp_tag
#include "base/files.hpp"
#include "base/json.hpp"
#include "core/formats/hf_cache_layout.hpp"

namespace poslab::hub {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::string folder_name(const ModelName& m) { return hf_cache::repo_folder(m.org, m.name); }

}  // namespace

fs::path hf_home() {
  if (auto home = env("HF_HOME")) return *home;
  return xdg_home(XdgFolder::Cache) / "huggingface";
}

fs::path default_cache_root() {
  if (auto cache = env("HF_HUB_CACHE")) return *cache;
  if (auto cache = env("HUGGINGFACE_HUB_CACHE")) return *cache;
  return hf_home() / "hub";
}

bool is_wanted_file(std::string_view file) {
  if (file.find('/') != std::string_view::npos) return false;  // the top folder only
  return file == "config.json" || file == "tokenizer.json" || file == "tokenizer_config.json" ||
         ends_with(file, ".safetensors") || ends_with(file, ".safetensors.index.json");
}

std::vector<std::string> missing_model_files(const fs::path& snapshot) {
  std::error_code ec;
  std::vector<std::string> missing;
  if (!fs::exists(snapshot / "config.json", ec)) missing.emplace_back("config.json");
  if (fs::exists(snapshot / "model.safetensors", ec)) return missing;
  const auto index = read_whole_file(snapshot / "model.safetensors.index.json", kJsonConfigFile);
  if (!index) {
    missing.emplace_back("model.safetensors");
    return missing;
  }
  const auto json = nlohmann::json::parse(*index, nullptr, false);
  const nlohmann::json* weight_map = json_member(json, "weight_map", &nlohmann::json::is_object);
  if (!weight_map) return missing;
  std::vector<std::string> shards;
  for (const auto& [tensor, shard] : weight_map->items())
    if (shard.is_string()) shards.push_back(shard.get<std::string>());
  std::sort(shards.begin(), shards.end());
  shards.erase(std::unique(shards.begin(), shards.end()), shards.end());
  for (const auto& shard : shards)
    if (unsafe_file_name(shard) || !fs::exists(snapshot / shard, ec)) missing.push_back(shard);
  return missing;
}

fs::path HubCache::repo(const ModelName& m) const { return root_ / folder_name(m); }
fs::path HubCache::snapshot(const ModelName& m, const std::string& commit) const { return hf_cache::snapshot(repo(m), commit); }
fs::path HubCache::blob(const ModelName& m, const std::string& etag) const { return hf_cache::blob(repo(m), etag); }
fs::path HubCache::incomplete(const ModelName& m, const std::string& etag) const {
  return hf_cache::incomplete(repo(m), etag);
}
fs::path HubCache::lock_file(const ModelName& m, const std::string& etag) const {
  return hf_cache::lock_file(root_, folder_name(m), etag);
}
fs::path HubCache::no_exist(const ModelName& m, const std::string& commit, const std::string& file) const {
  return hf_cache::no_exist(repo(m), commit, file);
}

std::optional<std::string> HubCache::commit_of(const ModelName& m) const {
  if (is_commit_hash(m.revision)) return m.revision;
  auto ref = read_whole_file(hf_cache::ref(repo(m), m.revision), kSmallTextFile);
  if (!ref) return std::nullopt;
  std::string commit = trimmed(*ref);
  if (!is_commit_hash(commit)) return std::nullopt;  // a ref that lies is no ref
  return commit;
}

Status HubCache::write_ref(const ModelName& m, const std::string& commit) const {
  if (m.revision == commit) return Ok{};  // huggingface_hub writes no ref for a commit hash
  const fs::path ref = hf_cache::ref(repo(m), m.revision);
  std::error_code ec;
  fs::create_directories(ref.parent_path(), ec);
  if (ec) return Error{ref.parent_path().string() + ": " + ec.message()};
  if (auto current = read_whole_file(ref, kSmallTextFile); current && *current == commit) return Ok{};
  return write_file_atomic(ref, commit);
}

Status HubCache::link(const ModelName& m, const std::string& commit, const std::string& file, const std::string& etag) const {
  const fs::path pointer = snapshot(m, commit) / file;
  std::error_code ec;
  fs::create_directories(pointer.parent_path(), ec);
  if (ec) return Error{pointer.parent_path().string() + ": " + ec.message()};
  // Lexically, as huggingface_hub's os.path.relpath: ../../blobs/<etag> whatever the root's own links.
  const fs::path target = blob(m, etag).lexically_relative(pointer.parent_path());
  // A new link beside the old one, renamed over it: a reader sees the old file or the new one. The
  // new link's name is this writer's own (process and call), so that two fetches of one model at
  // once, in two threads or two processes, never remove or rename each other's.
  const fs::path temporary = pointer.parent_path() / ("." + pointer.filename().string() + "." + unique_temp_tag() + ".link");
  fs::remove(temporary, ec);
  fs::create_symlink(target, temporary, ec);
  if (ec) return Error{pointer.string() + ": cannot link to its blob: " + ec.message()};
  fs::rename(temporary, pointer, ec);
  if (ec) return Error{pointer.string() + ": " + ec.message()};
  return Ok{};
}

Status HubCache::mark_missing(const ModelName& m, const std::string& commit, const std::string& file) const {
  const fs::path marker = no_exist(m, commit, file);
  std::error_code ec;
  if (fs::exists(marker, ec)) return Ok{};  // a commit's files never change: once is enough
  fs::create_directories(marker.parent_path(), ec);
  if (ec) return Error{marker.parent_path().string() + ": " + ec.message()};
  return write_file_atomic(marker, "");
}

std::vector<CachedModel> HubCache::models() const {
  std::vector<CachedModel> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root_, ec)) {
    const std::string folder = entry.path().filename().string();
    if (!entry.is_directory(ec) || folder.rfind(hf_cache::kModelPrefix, 0) != 0) continue;
    const std::string rest = folder.substr(hf_cache::kModelPrefix.size());
    const auto split = rest.find("--");
    if (split == std::string::npos) continue;
    auto name = parse_model_name(rest.substr(0, split) + "/" + rest.substr(split + 2));
    if (!name) continue;
    CachedModel model{*name, {}, {}};
    const fs::path refs = hf_cache::refs(entry.path());
    for (auto it = fs::recursive_directory_iterator(refs, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      auto commit = read_whole_file(it->path(), kSmallTextFile);
      if (commit && is_commit_hash(trimmed(*commit)))
        model.refs[it->path().lexically_relative(refs).generic_string()] = trimmed(*commit);
    }
    for (const auto& snap : fs::directory_iterator(hf_cache::snapshots(entry.path()), ec))
      if (snap.is_directory(ec)) model.snapshots.push_back(snap.path().filename().string());
    std::sort(model.snapshots.begin(), model.snapshots.end());
    if (model.snapshots.empty()) continue;
    if (!model.refs.count("main") && !model.refs.empty()) model.name.revision = model.refs.begin()->first;
    if (model.refs.empty()) model.name.revision = model.snapshots.front();
    out.push_back(std::move(model));
  }
  std::sort(out.begin(), out.end(), [](const CachedModel& a, const CachedModel& b) { return a.name.repo_id() < b.name.repo_id(); });
  return out;
}

}  // namespace poslab::hub

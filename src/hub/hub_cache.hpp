#pragma once
// Hugging Face's cache as huggingface_hub lays it out (the layout is said once, in
// core/formats/hf_cache_layout.hpp), so that a model either tool downloaded is found by the other.
// The root is $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hub/model_name.hpp"
#include "base/result.hpp"

namespace poslab::hub {

// $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface.
std::filesystem::path hf_home();
// $HF_HUB_CACHE (or the older $HUGGINGFACE_HUB_CACHE), else hf_home()/hub.
std::filesystem::path default_cache_root();

// The model files PosLab reads from a repository's top folder: config.json, the tokenizer's two
// files, *.safetensors and their index. Nothing else is downloaded.
bool is_wanted_file(std::string_view file);

// The files of a snapshot folder that a model run needs and that are not there: config.json, and
// model.safetensors or its index with every shard it names. Empty: the snapshot is complete.
std::vector<std::string> missing_model_files(const std::filesystem::path& snapshot);

struct CachedModel {
  ModelName name;                                 // revision: main if it has that ref, else the first
  std::map<std::string, std::string> refs;        // revision → commit
  std::vector<std::string> snapshots;             // commits with a snapshot folder
};

class HubCache {
 public:
  explicit HubCache(std::filesystem::path root = default_cache_root()) : root_(std::move(root)) {}
  const std::filesystem::path& root() const { return root_; }

  std::filesystem::path repo(const ModelName& m) const;  // root/models--ORG--NAME
  std::filesystem::path snapshot(const ModelName& m, const std::string& commit) const;
  std::filesystem::path blob(const ModelName& m, const std::string& etag) const;
  std::filesystem::path incomplete(const ModelName& m, const std::string& etag) const;
  std::filesystem::path lock_file(const ModelName& m, const std::string& etag) const;
  std::filesystem::path no_exist(const ModelName& m, const std::string& commit, const std::string& file) const;

  // The commit m.revision names here: itself when it is a commit hash, else refs/<revision>.
  std::optional<std::string> commit_of(const ModelName& m) const;
  Status write_ref(const ModelName& m, const std::string& commit) const;  // refs/<m.revision>
  // snapshots/<commit>/<file> → ../../blobs/<etag> (one more ../ per folder in file).
  Status link(const ModelName& m, const std::string& commit, const std::string& file, const std::string& etag) const;
  Status mark_missing(const ModelName& m, const std::string& commit, const std::string& file) const;

  // Every model in the cache with its refs and snapshots, by name.
  std::vector<CachedModel> models() const;

 private:
  std::filesystem::path root_;
};

}  // namespace poslab::hub

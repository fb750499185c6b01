#pragma once
// Hugging Face's cache as huggingface_hub lays it out, said once: the Hub client writes it
// (src/hub/hub_cache), and a cache folder given as a model folder is read through it
// (resolve_model_folder, formats.hpp), so that a model either tool downloaded is found by the other.
//   <root>/models--ORG--NAME/blobs/<etag>                  the files' bytes, named by their etag
//   <root>/models--ORG--NAME/blobs/<etag>.incomplete       a download in progress (resumable)
//   <root>/models--ORG--NAME/snapshots/<commit>/<file>     relative symlinks into ../../blobs
//   <root>/models--ORG--NAME/refs/<revision>               the commit a branch or tag was last seen at
//   <root>/models--ORG--NAME/.no_exist/<commit>/<file>     empty: the file is not in that commit
//   <root>/.locks/models--ORG--NAME/<etag>.lock            one writer per blob (flock)
#include <filesystem>
#include <string>
#include <string_view>

namespace poslab::hf_cache {

constexpr std::string_view kModelPrefix = "models--";

// models--ORG--NAME, a repository's folder under the root.
inline std::string repo_folder(std::string_view org, std::string_view name) {
  return std::string(kModelPrefix) + std::string(org) + "--" + std::string(name);
}

inline std::filesystem::path snapshots(const std::filesystem::path& repo) { return repo / "snapshots"; }
inline std::filesystem::path snapshot(const std::filesystem::path& repo, const std::string& commit) {
  return snapshots(repo) / commit;
}
inline std::filesystem::path refs(const std::filesystem::path& repo) { return repo / "refs"; }
inline std::filesystem::path ref(const std::filesystem::path& repo, const std::string& revision) {
  return refs(repo) / revision;
}
inline std::filesystem::path blob(const std::filesystem::path& repo, const std::string& etag) { return repo / "blobs" / etag; }
inline std::filesystem::path incomplete(const std::filesystem::path& repo, const std::string& etag) {
  return repo / "blobs" / (etag + ".incomplete");
}
inline std::filesystem::path no_exist(const std::filesystem::path& repo, const std::string& commit, const std::string& file) {
  return repo / ".no_exist" / commit / file;
}
inline std::filesystem::path lock_file(const std::filesystem::path& root, const std::string& repo_folder_name,
                                       const std::string& etag) {
  return root / ".locks" / repo_folder_name / (etag + ".lock");
}

}  // namespace poslab::hf_cache

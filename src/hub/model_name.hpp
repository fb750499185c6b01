#pragma once
// A model named as the Hugging Face Hub names it: ORG/NAME[@REVISION]. Every part is checked
// before any path is built from it, so that no name can reach outside the cache folder: a part
// with "..", a slash too many, an absolute path or a character the Hub does not allow is refused.
#include <optional>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace poslab::hub {

inline constexpr std::string_view kDefaultRevision = "main";

struct ModelName {
  std::string org;
  std::string name;
  std::string revision{kDefaultRevision};  // a branch, a tag or a commit hash
  std::string repo_id() const { return org + "/" + name; }  // "EleutherAI/pythia-70m"
  std::string text() const { return repo_id() + "@" + revision; }
  bool operator==(const ModelName&) const = default;
};

// "ORG/NAME" or "ORG/NAME@REVISION"; the error says which part is wrong and why.
Result<ModelName> parse_model_name(std::string_view text);

// Whether `text` is meant as a model name rather than a folder: it has the shape ORG/NAME[@REV]
// (one slash, no leading "/" or ".") and no such path exists. A path that exists is a folder.
bool looks_like_model_name(std::string_view text);

// A git commit as the Hub names one: 40 lowercase hexadecimal digits.
bool is_commit_hash(std::string_view revision);

// A file's name inside a repository ("config.json", "onnx/model.safetensors"): relative, no ".."
// or empty part, no backslash or control character. Empty when it is safe, else why not.
std::optional<std::string> unsafe_file_name(std::string_view file);

// A blob's name (the file's etag: a git object id or an LFS sha256): letters, digits, '-' and '_'
// only, so that it names one file inside blobs/.
bool is_safe_blob_name(std::string_view etag);

}  // namespace poslab::hub

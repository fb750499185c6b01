#include "hub/model_name.hpp"

#include <algorithm>
#include <filesystem>

namespace poslab::hub {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

// The Hub's rule for each half of a repository id (huggingface_hub's validate_repo_id): letters,
// digits, '-', '_', '.'; not starting or ending with '-' or '.'; no "--" or ".."; at most 96
// characters in all.
std::optional<std::string> bad_part(std::string_view part, std::string_view what) {
  if (part.empty()) return std::string(what) + " is empty";
  if (!std::all_of(part.begin(), part.end(), is_name_char))
    return std::string(what) + " \"" + std::string(part) + "\" may hold only letters, digits, '-', '_' and '.'";
  if (part.front() == '-' || part.front() == '.' || part.back() == '-' || part.back() == '.')
    return std::string(what) + " \"" + std::string(part) + "\" may not start or end with '-' or '.'";
  if (part.find("--") != std::string_view::npos || part.find("..") != std::string_view::npos)
    return std::string(what) + " \"" + std::string(part) + "\" may not contain \"--\" or \"..\"";
  return std::nullopt;
}

// A branch or tag as git allows it, narrowed to what is safe as a path under refs/: parts of
// letters, digits, '-', '_', '.', split by single slashes, none "." or "..".
std::optional<std::string> bad_revision(std::string_view rev) {
  if (rev.empty()) return std::string("the revision after '@' is empty");
  if (rev.size() > 255) return std::string("the revision is longer than 255 characters");
  std::size_t start = 0;
  while (start <= rev.size()) {
    const std::size_t slash = std::min(rev.find('/', start), rev.size());
    const std::string_view part = rev.substr(start, slash - start);
    if (part.empty() || part == "." || part == ".." || part.front() == '.' || !std::all_of(part.begin(), part.end(), is_name_char))
      return "the revision \"" + std::string(rev) + "\" is not a branch, tag or commit name";
    start = slash + 1;
  }
  return std::nullopt;
}

}  // namespace

Result<ModelName> parse_model_name(std::string_view text) {
  ModelName out;
  std::string_view repo = text;
  if (const auto at = text.find('@'); at != std::string_view::npos) {
    repo = text.substr(0, at);
    out.revision = std::string(text.substr(at + 1));
    if (auto bad = bad_revision(out.revision)) return Error{"model name " + std::string(text) + ": " + *bad};
  }
  const auto slash = repo.find('/');
  if (slash == std::string_view::npos || repo.find('/', slash + 1) != std::string_view::npos)
    return Error{"model name " + std::string(text) + ": expected ORG/NAME[@REVISION], e.g. EleutherAI/pythia-70m@step1000"};
  if (repo.size() > 96) return Error{"model name " + std::string(text) + ": longer than the Hub's 96 characters"};
  out.org = std::string(repo.substr(0, slash));
  out.name = std::string(repo.substr(slash + 1));
  if (auto bad = bad_part(out.org, "the organization")) return Error{"model name " + std::string(text) + ": " + *bad};
  if (auto bad = bad_part(out.name, "the model's name")) return Error{"model name " + std::string(text) + ": " + *bad};
  return out;
}

bool looks_like_model_name(std::string_view text) {
  if (text.empty() || text.front() == '/' || text.front() == '.' || text.front() == '~') return false;
  const std::string_view repo = text.substr(0, text.find('@'));
  if (std::count(repo.begin(), repo.end(), '/') != 1) return false;
  std::error_code ec;
  return !std::filesystem::exists(std::filesystem::path(std::string(text)), ec);
}

bool is_commit_hash(std::string_view revision) {
  return revision.size() == 40 &&
         std::all_of(revision.begin(), revision.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::optional<std::string> unsafe_file_name(std::string_view file) {
  if (file.empty()) return std::string("an empty file name");
  if (file.front() == '/') return "\"" + std::string(file) + "\" is an absolute path";
  if (file.size() > 1024) return std::string("a file name longer than 1024 characters");
  for (char c : file)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\' || c == ':')
      return "\"" + std::string(file) + "\" holds a character not allowed in a file name";
  std::size_t start = 0;
  while (start <= file.size()) {
    const std::size_t slash = std::min(file.find('/', start), file.size());
    const std::string_view part = file.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return "\"" + std::string(file) + "\" would leave its folder";
    start = slash + 1;
  }
  return std::nullopt;
}

bool is_safe_blob_name(std::string_view etag) {
  return !etag.empty() && etag.size() <= 128 &&
         std::all_of(etag.begin(), etag.end(), [](char c) { return is_name_char(c) && c != '.'; });
}

}  // namespace poslab::hub

#pragma once
// A --model argument shaped as the Hub names models (ORG/NAME[@REVISION]) as a folder: the
// model's snapshot in Hugging Face's cache, fetched first when it is not there and downloads are
// allowed. A path that exists is a folder, as always. How a download reports is the caller's
// choice (NameResolution): each front end wraps this in the resolver it installs at start-up
// (core/model_resolver.hpp).
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "hub/hub_client.hpp"
#include "base/result.hpp"

namespace poslab::hub {

struct NameResolution {
  bool allow_download = true;
  std::string not_cached_hint;  // without downloads: what the front end offers instead ("…: download it in …")
  std::function<void(const FetchPlan&)> starting;           // before the first byte: what and how much
  std::function<void(const DownloadProgress&)> progress;
  std::function<void(const std::string&)> note;            // e.g. the cache used because the Hub is out of reach
  std::function<void()> finished;                          // after a download, whatever its outcome
  std::function<void(const std::string&)> waiting;         // FetchControl::waiting: what it waits for
};

// `text` as a folder: itself when it exists or is not shaped like a model name; else the
// snapshot folder of the named model (from the cache, downloading what is missing when allowed).
Result<std::filesystem::path> resolve_model_argument(std::string_view text, const NameResolution& how);

}  // namespace poslab::hub

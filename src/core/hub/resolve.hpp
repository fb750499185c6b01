#pragma once
// The one place a --model argument becomes a folder: a path that exists is a folder, as always;
// ORG/NAME[@REVISION] is a model in Hugging Face's cache, downloaded first when it is not there.
// How a download reports is the front end's choice, made once per process: the command line
// prints to stderr; the window downloads in its model box (with Cancel) and resolves names from
// the cache alone, so that nothing on its UI thread waits for the network.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "core/hub/hub_client.hpp"
#include "core/result.hpp"

namespace poslab::hub {

struct NameResolution {
  bool allow_download = true;
  std::function<void(const FetchPlan&)> starting;           // before the first byte: what and how much
  std::function<void(const DownloadProgress&)> progress;
  std::function<void(const std::string&)> note;            // e.g. the cache used because the Hub is out of reach
  std::function<void()> finished;                          // after a download, whatever its outcome
  std::function<void(const std::string&)> waiting;         // FetchControl::waiting: what it waits for
};

void set_name_resolution(NameResolution resolution);
NameResolution name_resolution();  // a copy: another thread may set it meanwhile

// `text` as a folder: itself when it exists or is not shaped like a model name; else the
// snapshot folder of the named model (from the cache, downloading what is missing when allowed).
Result<std::filesystem::path> resolve_model_argument(std::string_view text);

}  // namespace poslab::hub

#pragma once
// How a --model argument (a state option, a session's model, the Embeddings box) becomes a
// folder. A path is a folder; a name shaped as the Hub names models (ORG/NAME[@REVISION]) goes
// to the resolver the front end installed at start-up: the command line's fetches into Hugging
// Face's cache and reports on stderr, the window's reads the cache alone (its UI thread never
// waits for the network; its model box downloads on a worker). The core itself knows no network,
// so no option parser downloads unless its front end said so.
#include <filesystem>
#include <functional>
#include <string_view>

#include "base/result.hpp"

namespace poslab {

using ModelResolver = std::function<Result<std::filesystem::path>(std::string_view argument)>;

// Replaces the process's resolver (each front end calls it once, before any option is read).
void install_model_resolver(ModelResolver resolver);

// `argument` as a folder: what the installed resolver makes of it, else the path itself.
Result<std::filesystem::path> resolve_model_argument(std::string_view argument);

}  // namespace poslab

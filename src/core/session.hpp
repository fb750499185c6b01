#pragma once
// Session files: the whole State as JSON, keyed by the command-line option names (without the
// dashes), so that a session, the command line and the GUI speak one vocabulary.
//   {"poslab_session": 1, "state": {"sentence": "…", "encoding": "rope", "heads": 5, "causal": true}}
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/state.hpp"

namespace poslab {

inline constexpr int kSessionVersion = 1;

// Every state option with its value in `state`, as the command line would spell it; flags are
// "true" or "false".
std::vector<std::pair<std::string, std::string>> state_to_options(const State& state);

// With `session_file` (where the JSON will be written), the session travels: a model from
// Hugging Face's cache is stored by its Hub name and commit ("model": "ORG/NAME@COMMIT", which
// reopens it on any machine, downloading it if need be), and the files it reads (embeddings or
// model folder, vocabulary, learned table) by paths relative to the session file's folder.
std::string session_json(const State& state, const std::filesystem::path& session_file = {});

// "ORG/NAME@COMMIT" when `folder` is a snapshot of Hugging Face's cache layout
// (…/models--ORG--NAME/snapshots/COMMIT), else empty.
std::string hub_name_of_snapshot(const std::filesystem::path& folder);

struct LoadedSession {
  State state;
  std::vector<std::string> unknown_keys;  // reported to the user and otherwise ignored
};

// Missing keys take their defaults; a value of the wrong type or out of range is an error that
// names the key, and nothing is returned half-applied.
// Relative paths in it are read against `folder` (the session file's; empty: the working folder),
// and a "model" is applied before every other key (its config.json first, then the session's own
// values over it).
Result<LoadedSession> parse_session(std::string_view json_text, const std::string& name, const std::filesystem::path& folder = {});
Result<LoadedSession> load_session(const std::filesystem::path& path);

// Where PosLab keeps what it remembers between runs (the last session, recent files, the GUI's
// settings): $XDG_CONFIG_HOME/poslab, else ~/.config/poslab, after the XDG Base Directory
// Specification (a relative $XDG_CONFIG_HOME is ignored, as it says); the temporary folder
// when there is no home either.
std::filesystem::path config_dir();

}  // namespace poslab

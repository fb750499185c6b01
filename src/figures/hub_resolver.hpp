#pragma once
// The model resolver of the front ends without a window (core/model_resolver.hpp), the command
// line's and the Python module's, and its reports of downloads on stderr.
#include <chrono>
#include <string>

#include "hub/hub_client.hpp"

namespace poslab {

// Installs the resolver, once at start-up: a --model ORG/NAME missing from the cache is
// downloaded, reporting on stderr: a bar redrawn in place on a terminal, plain lines (one per
// file) otherwise.
void install_command_line_resolver();

// A download's progress on stderr: a bar on a terminal, a line per finished file elsewhere.
struct StderrProgress {
  StderrProgress();
  void operator()(const hub::DownloadProgress& p);
  void finished();

  bool terminal = false;  // stderr is a terminal
  int files_reported = 0;
  std::chrono::steady_clock::time_point drawn{};
};

// What a fetch waits for (another download's lock), on its own line.
void say_waiting(const std::string& what);

}  // namespace poslab

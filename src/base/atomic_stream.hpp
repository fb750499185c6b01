#pragma once
// Atomic writing of output too large to hold in memory (a long sentence's attention CSV is
// millions of rows): streamed into a temporary file beside the target, renamed over it at the end.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

#include "base/result.hpp"

namespace poslab {

// "PID-N": unique to this process and this call. Temporary names beside a target carry it, so two
// threads writing the same file at once (two fetches of one model, say) never share a temporary
// file and rename it from under each other.
std::string unique_temp_tag();

// Calls `write` with a stream into a temporary file beside `path`, then renames it over `path`:
// never half-written, and on failure (including a failed stream) the old file is left as it was.
Status write_stream_atomic(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace poslab

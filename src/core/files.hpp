#pragma once
// Whole-file reading and atomic writing, with messages that name the file.
#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace poslab {

// The bytes of a file; a missing file, a folder or a read error is a message naming the path.
Result<std::string> read_whole_file(const std::filesystem::path& path);

// Writes to a temporary file beside `path`, then renames it over `path`: never half-written.
Status write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

}  // namespace poslab

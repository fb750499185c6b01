#include "core/files.hpp"

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace poslab {

Result<std::string> read_whole_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Error{name + ": no such file"};
  if (std::filesystem::is_directory(path, ec)) return Error{name + ": is a directory, not a file"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{name + ": cannot be opened for reading"};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Error{name + ": read error"};
  return buffer.str();
}

Status write_file_atomic(const std::filesystem::path& path, std::string_view bytes) {
  const std::string name = path.string();
  if (name.empty()) return Error{"no output path given"};
  std::error_code ec;
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec)) return Error{name + ": the folder " + dir.string() + " does not exist"};
  if (std::filesystem::is_directory(path, ec)) return Error{name + ": is a folder"};
  const std::filesystem::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{name + ": cannot write in " + dir.string() + " (permission denied?)"};
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(tmp, ec);
      return Error{name + ": write failed (disk full?)"};
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return Error{name + ": cannot replace the file: " + ec.message()};
  }
  return Ok{};
}

}  // namespace poslab

#include "base/atomic_stream.hpp"

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

namespace poslab {

Status write_stream_atomic(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  const std::string name = path.string();
  if (name.empty()) return Error{"no output path given"};
  std::error_code ec;
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec)) return Error{name + ": the folder " + dir.string() + " does not exist"};
  if (std::filesystem::is_directory(path, ec)) return Error{name + ": is a folder"};
  const std::filesystem::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out;
    std::vector<char> buffer(1 << 20);  // large writes: the rows arrive in many small pieces
    out.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    out.open(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{name + ": cannot write in " + dir.string() + " (permission denied?)"};
    write(out);
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

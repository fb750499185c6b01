#include "base/atomic_stream.hpp"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <vector>

namespace poslab {

std::string unique_temp_tag() {
  static std::atomic<unsigned long long> counter{0};
  return std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

Status write_stream_atomic(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  const std::string name = path.string();
  if (name.empty()) return Error{"no output path given"};
  std::error_code ec;
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec)) return Error{name + ": the folder " + dir.string() + " does not exist"};
  if (std::filesystem::is_directory(path, ec)) return Error{name + ": is a folder"};
  const std::filesystem::path tmp = path.string() + ".tmp-" + unique_temp_tag();
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
    const std::string why = ec.message();  // before remove() overwrites ec
    std::filesystem::remove(tmp, ec);
    return Error{name + ": cannot replace the file: " + why};
  }
  return Ok{};
}

}  // namespace poslab

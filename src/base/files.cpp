#include "base/files.hpp"

#include <cstdlib>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <system_error>
#include <unistd.h>
#include <utility>

#include "base/atomic_stream.hpp"

namespace poslab {

std::string json_error_text(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    const auto end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  for (std::string_view prefix : {"parse error at ", "parse error: "})
    if (what.starts_with(prefix)) what.remove_prefix(prefix.size());
  return std::string(what);
}

Status write_file_atomic(const std::filesystem::path& path, std::string_view bytes) {
  // One write through the streaming version: the same checks, temporary name and rename.
  return write_stream_atomic(path, [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

namespace {

long long mtime_ns(const struct stat& st) {
  return static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec;
}

// Opens a regular file for reading; its descriptor and status, or a message naming it.
Result<std::pair<int, struct stat>> open_regular_file(const std::string& name) {
  // O_NONBLOCK: opening a pipe for reading would otherwise wait until something writes to it.
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Error{name + ": no such file"};
    return Error{name + ": cannot be opened for reading: " + std::generic_category().message(err)};
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Error{name + ": cannot be examined: " + std::generic_category().message(err)};
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Error{name + ": is a directory, not a file"};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{name + ": is not a regular file"};
  }
  return std::pair<int, struct stat>{fd, st};
}

// Closes a descriptor when it goes.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

// Up to `length` bytes at `out`, fewer only at the end of the file; -1 on a read error.
long long read_up_to(int fd, char* out, std::size_t length) {
  std::size_t have = 0;
  while (have < length) {
    const ssize_t got = ::read(fd, out + have, length - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
  }
  return static_cast<long long>(have);
}

}  // namespace

std::string file_size_text(std::uint64_t bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  double value = static_cast<double>(bytes);
  int u = 0;
  while (value >= 1000.0 && u < 6) value /= 1000.0, ++u;
  char out[48];
  if (u == 0 || value == std::floor(value)) std::snprintf(out, sizeof out, "%.0f %s", value, units[u]);
  else std::snprintf(out, sizeof out, value < 10.0 ? "%.2f %s" : value < 100.0 ? "%.1f %s" : "%.0f %s", value, units[u]);
  return out;
}

Result<std::string> read_whole_file(const std::filesystem::path& path, const FileKind& kind) {
  const std::string name = path.string();
  auto opened = open_regular_file(name);
  if (!opened) return Error{opened.error()};
  const auto& [fd, st] = *opened;
  const FdCloser closer{fd};
  const std::string limit = "the " + file_size_text(kind.limit) + " " + std::string(kind.what) + " may be";
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > kind.limit)  // a sparse file too: nothing is read
    return Error{name + ": is " + file_size_text(size) + ", more than " + limit};
  // One allocation of the file's size and one read into it: a stream buffer would grow and copy
  // a 300 MB file several times.
  std::string bytes(static_cast<std::size_t>(size), '\0');
  const long long got = read_up_to(fd, bytes.data(), bytes.size());
  if (got < 0) return Error{name + ": read error: " + std::generic_category().message(errno)};
  bytes.resize(static_cast<std::size_t>(got));
  // A file that grew after it was measured: the rest in pieces, still within the limit.
  char piece[1 << 16];
  for (;;) {
    const long long more = read_up_to(fd, piece, sizeof piece);
    if (more < 0) return Error{name + ": read error: " + std::generic_category().message(errno)};
    if (more == 0) break;
    if (bytes.size() + static_cast<std::size_t>(more) > kind.limit) return Error{name + ": grew past " + limit + " while it was read"};
    bytes.append(piece, static_cast<std::size_t>(more));
  }
  if (kind.content != FileKind::Content::Bytes)
    if (const auto nul = bytes.find('\0'); nul != std::string::npos)
      return Error{name + (kind.content == FileKind::Content::Json ? ": not valid JSON: " : ": not text: ") +
                   "a NUL byte at byte " + std::to_string(nul) + " (a file padded with zeros, or not " +
                   std::string(kind.what) + ")"};
  return bytes;
}

Result<ReadOnlyFile> ReadOnlyFile::open(const std::filesystem::path& path) {
  auto opened = open_regular_file(path.string());
  if (!opened) return Error{opened.error()};
  const auto& [fd, st] = *opened;
  return ReadOnlyFile(fd, path.string(), static_cast<std::size_t>(st.st_size), mtime_ns(st));
}

ReadOnlyFile::ReadOnlyFile(ReadOnlyFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::move(other.name_)), size_(other.size_), mtime_ns_(other.mtime_ns_) {}

ReadOnlyFile& ReadOnlyFile::operator=(ReadOnlyFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    name_ = std::move(other.name_);
    size_ = other.size_;
    mtime_ns_ = other.mtime_ns_;
  }
  return *this;
}

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status ReadOnlyFile::read_at(std::size_t offset, char* out, std::size_t length) const {
  while (length > 0) {
    const ssize_t got = ::pread(fd_, out, length, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Error{name_ + ": read error: " + std::generic_category().message(errno)};
    }
    if (got == 0) return Error{name_ + ": the file became shorter while it was read (is another program writing it?)"};
    out += got;
    offset += static_cast<std::size_t>(got);
    length -= static_cast<std::size_t>(got);
  }
  return Ok{};
}

bool ReadOnlyFile::changed() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return true;
  return static_cast<std::size_t>(st.st_size) != size_ || mtime_ns(st) != mtime_ns_;
}

Result<MappedFile> MappedFile::map(const std::filesystem::path& path) {
  const std::string name = path.string();
  auto opened = open_regular_file(name);
  if (!opened) return Error{opened.error()};
  const auto [fd, st] = *opened;
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) {  // mmap refuses empty ranges; an empty view is all there is to see
    ::close(fd);
    return MappedFile(nullptr, 0);
  }
  // Private and read-only: we never write, and other processes' later writes are not our data.
  // (Truncating the file while it is mapped would still fault on access; nothing can stop that.)
  void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps its own reference to the file
  if (addr == MAP_FAILED)
    return Error{name + ": cannot be mapped into memory: " + std::generic_category().message(err)};
  return MappedFile(addr, size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : addr_(std::exchange(other.addr_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (addr_ != nullptr) ::munmap(addr_, size_);
    addr_ = std::exchange(other.addr_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (addr_ != nullptr) ::munmap(addr_, size_);
}

// --- Parsing and validation ---------------------------------------------------------------------

std::filesystem::path xdg_home(XdgFolder kind) {
  namespace fs = std::filesystem;
  const auto absolute_from = [](const char* variable) {
    const char* value = std::getenv(variable);
    return value && *value && fs::path(value).is_absolute() ? fs::path(value) : fs::path();
  };
  const char* variable = kind == XdgFolder::Config ? "XDG_CONFIG_HOME" : kind == XdgFolder::Data ? "XDG_DATA_HOME" : "XDG_CACHE_HOME";
  if (fs::path set = absolute_from(variable); !set.empty()) return set;
  const fs::path home = absolute_from("HOME");
  if (home.empty()) return fs::temp_directory_path();
  return kind == XdgFolder::Config ? home / ".config" : kind == XdgFolder::Data ? home / ".local" / "share" : home / ".cache";
}

}  // namespace poslab

#include "base/files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <system_error>
#include <sstream>
#include <unistd.h>
#include <utility>

#include "base/atomic_stream.hpp"

namespace poslab {

Result<std::string> read_whole_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Error{name + ": no such file"};
  if (std::filesystem::is_directory(path, ec)) return Error{name + ": is a directory, not a file"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{name + ": cannot be opened for reading"};
  // One allocation of the file's size and one read into it: a stream buffer would grow and copy
  // a 300 MB file several times.
  const auto size = std::filesystem::file_size(path, ec);
  std::string bytes;
  if (!ec) {
    bytes.resize(static_cast<std::size_t>(size));
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    if (in.bad()) return Error{name + ": read error"};
    if (in.gcount() == static_cast<std::streamsize>(size) && in.peek() == std::ifstream::traits_type::eof()) return bytes;
    in.clear();  // the file grew while reading (or is special): read the rest as it comes
  }
  std::ostringstream rest;
  rest << in.rdbuf();
  if (in.bad()) return Error{name + ": read error"};
  return bytes + rest.str();
}

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
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
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

}  // namespace

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

}  // namespace poslab

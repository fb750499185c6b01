#pragma once
// Whole-file reading and atomic writing, with messages that name the file.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace poslab {

// The bytes of a file; a missing file, a folder or a read error is a message naming the path.
Result<std::string> read_whole_file(const std::filesystem::path& path);

// A JSON library's error as a reader would say it: "[json.exception.parse_error.101] parse error at
// line 3, column 5: syntax error …" becomes "line 3, column 5: syntax error …".
std::string json_error_text(std::string_view what);

// Writes to a temporary file beside `path`, then renames it over `path`: never half-written.
Status write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

// A file open for reading at any offset (pread), closed on destruction. Move-only. Reading rather
// than mapping a file that another program cuts short meanwhile gives an error, where touching
// a mapping past the new end kills the process with SIGBUS.
class ReadOnlyFile {
 public:
  static Result<ReadOnlyFile> open(const std::filesystem::path& path);
  ReadOnlyFile(ReadOnlyFile&& other) noexcept;
  ReadOnlyFile& operator=(ReadOnlyFile&& other) noexcept;
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile();

  const std::string& name() const { return name_; }
  std::size_t size() const { return size_; }  // as it was when opened
  // Exactly `length` bytes from `offset` into `out`; a file now shorter than that is an error.
  // Safe to call from several threads at once.
  Status read_at(std::size_t offset, char* out, std::size_t length) const;
  // True when the file's size or modification time differs from when it was opened.
  bool changed() const;

 private:
  ReadOnlyFile(int fd, std::string name, std::size_t size, long long mtime_ns)
      : fd_(fd), name_(std::move(name)), size_(size), mtime_ns_(mtime_ns) {}
  int fd_ = -1;
  std::string name_;
  std::size_t size_ = 0;
  long long mtime_ns_ = 0;
};

// A read-only private mapping of a whole file, unmapped on destruction. Move-only.
class MappedFile {
 public:
  static Result<MappedFile> map(const std::filesystem::path& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {static_cast<const char*>(addr_), size_}; }

 private:
  MappedFile(void* addr, std::size_t size) : addr_(addr), size_(size) {}
  void* addr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace poslab

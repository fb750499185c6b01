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

#pragma once
// Whole-file reading and atomic writing, with messages that name the file.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace poslab {

// What a file is read as: its name in messages and the most bytes it may hold. A file read whole
// must be a regular file no larger than its kind's limit, both checked before a byte is read: a
// pipe would wait forever for a writer, /dev/zero never ends, and a sparse or padded file of
// gigabytes would be taken into memory whole before any parser could say it is wrong.
struct FileKind {
  enum class Content { Bytes, Text, Json };
  std::string_view what;  // "a tokenizer.json", as in "… more than the 512 MB a tokenizer.json may be"
  std::uint64_t limit;    // bytes
  // Text and JSON never hold a NUL byte: one is refused when read (nlohmann's parser would take
  // the first NUL for the end and accept a file padded with zeros).
  Content content = Content::Bytes;
};

// The kinds PosLab reads whole. Each limit is far above the largest real file of its kind (Gemma 3's
// tokenizer.json is 33 MB, a 400k-word vocabulary 6 MB, a Hub model's index 2 MB) and far below
// what would exhaust a machine.
inline constexpr FileKind kJsonConfigFile{"a JSON configuration file", 64'000'000, FileKind::Content::Json};
inline constexpr FileKind kSessionFile{"a session", 64'000'000, FileKind::Content::Json};
inline constexpr FileKind kTokenizerFile{"a tokenizer.json", 512'000'000, FileKind::Content::Json};
inline constexpr FileKind kVocabularyFile{"a vocabulary", 1'000'000'000};
// A training log or an extrapolation table that PosLab wrote beside a trained model.
inline constexpr FileKind kTableFile{"a CSV table", 256'000'000, FileKind::Content::Text};
// A cache's refs/main, a token file: a line of text.
inline constexpr FileKind kSmallTextFile{"a one-line text file", 1'000'000, FileKind::Content::Text};
// word2vec binary and NumPy matrices: 2^31 values (the readers' own limit) of float64, and a header.
inline constexpr FileKind kMatrixFile{"a matrix file", 17'200'000'000};

// The bytes of a file of `kind`; a missing file, a folder, anything but a regular file, a file over
// the kind's limit or a read error is a message naming the path (and the limit).
Result<std::string> read_whole_file(const std::filesystem::path& path, const FileKind& kind);

// "512 MB", "20.0 GB": decimal units, as file sizes are usually shown.
std::string file_size_text(std::uint64_t bytes);

// A JSON library's error as a reader would say it: "[json.exception.parse_error.101] parse error at
// line 3, column 5: syntax error …" becomes "line 3, column 5: syntax error …".
std::string json_error_text(std::string_view what);

// The XDG base directories (the XDG Base Directory specification): $XDG_CONFIG_HOME,
// $XDG_DATA_HOME or $XDG_CACHE_HOME when set to an absolute path (a relative one is ignored, as
// the specification says), else ~/.config, ~/.local/share or ~/.cache; the temporary folder's
// when HOME is not set either. Every folder PosLab keeps things in starts here.
enum class XdgFolder { Config, Data, Cache };
std::filesystem::path xdg_home(XdgFolder kind);

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

#pragma once
// Hugging Face .safetensors files: an 8-byte little-endian header length, a JSON header naming
// each tensor's dtype, shape and byte range, then the raw data. The file is memory-mapped and
// only the rows asked for are read, so a multi-gigabyte checkpoint opens instantly. Every
// promise of the header is checked before any data is touched.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/files.hpp"
#include "base/matrix.hpp"
#include "base/result.hpp"

namespace poslab {

struct TensorInfo {
  std::string name;
  std::string dtype;  // as in the header: "F32", "F16", "BF16", or another one (unsupported)
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // byte range within the data that follows the header
};

// Whether rows() can read tensors of this dtype: F32, F16 and BF16.
bool safetensors_dtype_supported(std::string_view dtype);

class SafetensorsFile {
 public:
  // Maps and validates the file. Move-only. Tensors of other dtypes are listed (and their
  // byte ranges checked) but cannot be read.
  static Result<SafetensorsFile> open(const std::filesystem::path& path);
  // The same on bytes already in memory (tests, or a file read by other means); `name` is used
  // in messages.
  static Result<SafetensorsFile> parse(std::string bytes, const std::string& name);

  SafetensorsFile(SafetensorsFile&&) noexcept = default;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept = default;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;
  ~SafetensorsFile() = default;

  const std::string& name() const { return name_; }
  // In the order of their data in the file (ties by name); "__metadata__" is not a tensor.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  // Names of the tensors whose dtype rows() cannot read.
  std::vector<std::string> unsupported_tensors() const;

  // The tensor to use as embeddings: `name` if given; else the one whose name contains
  // "embed_tokens"; else the only 2-D tensor; else an error listing the 2-D tensors. The
  // tensor returned is 2-D with a supported dtype; the pointer lives as long as this object.
  Result<const TensorInfo*> embedding_tensor(const std::string& name) const;

  // Rows of a 2-D tensor converted to float (F16 exactly, subnormals included; BF16 is the top
  // half of a float32), reading only those rows. Ids out of range and non-finite values are
  // errors naming the tensor and the row.
  Result<Matrix> rows(const TensorInfo& t, std::span<const std::int64_t> row_ids) const;

  // The raw little-endian bytes of one of tensors() (checked against the file when it opened).
  std::string_view bytes(const TensorInfo& t) const { return data_.substr(t.begin, t.end - t.begin); }

 private:
  SafetensorsFile() = default;
  static Result<SafetensorsFile> from(SafetensorsFile file, std::string_view bytes);

  std::string name_;
  std::unique_ptr<MappedFile> map_;     // the file's bytes when opened from a path …
  std::unique_ptr<std::string> owned_;  // … or when parsed from memory (stable address)
  std::string_view data_;               // the bytes after the header
  std::vector<TensorInfo> tensors_;
};

}  // namespace poslab

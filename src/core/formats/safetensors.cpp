#include "core/formats/safetensors.hpp"
#include "base/half.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>

namespace poslab {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;  // the limit of the reference reader too

// Bytes per element of the dtypes whose size is known; 0 for others (sub-byte or unknown
// dtypes, whose byte ranges are still checked against the file, but not against the shape).
std::uint64_t item_size(std::string_view dtype) {
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "F64" || dtype == "I64" || dtype == "U64" || dtype == "C64") return 8;
  if (dtype == "BOOL" || dtype == "U8" || dtype == "I8" || dtype == "F8_E5M2" || dtype == "F8_E4M3" ||
      dtype == "F8_E8M0")
    return 1;
  return 0;
}

std::uint64_t read_le(const char* p, std::size_t size) {
  std::uint64_t v = 0;
  for (std::size_t k = 0; k < size; ++k) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return v;
}

// a·b, or false when it does not fit 64 bits.
bool checked_mul(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return false;
  out = a * b;
  return true;
}

// The byte size promised by a shape, or false on overflow.
bool shape_bytes(const std::vector<std::int64_t>& shape, std::uint64_t item, std::uint64_t& out) {
  std::uint64_t n = item;
  for (std::int64_t d : shape)
    if (!checked_mul(n, static_cast<std::uint64_t>(d), n)) return false;
  out = n;
  return true;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

// A JSON value as a non-negative integer (not a float, not negative, at most INT64_MAX).
bool as_count(const json& v, std::uint64_t& out) {
  if (!v.is_number_unsigned()) return false;
  out = v.get<std::uint64_t>();
  return out <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
}

// One header entry, checked on its own (overlaps are checked later, across entries).
Result<TensorInfo> tensor_entry(const std::string& key, const json& v, std::uint64_t data_size) {
  if (!v.is_object()) return Error{"is not a JSON object"};
  const auto dtype = v.find("dtype");
  const auto shape = v.find("shape");
  const auto offsets = v.find("data_offsets");
  if (dtype == v.end() || shape == v.end() || offsets == v.end())
    return Error{"lacks one of \"dtype\", \"shape\", \"data_offsets\""};
  if (!dtype->is_string()) return Error{"\"dtype\" is not a string"};
  TensorInfo t;
  t.name = key;
  t.dtype = dtype->get<std::string>();
  if (!shape->is_array()) return Error{"\"shape\" is not an array"};
  for (const json& d : *shape) {
    std::uint64_t n = 0;
    if (!as_count(d, n))
      return Error{"\"shape\" " + shape->dump() + " holds something other than a non-negative integer"};
    t.shape.push_back(static_cast<std::int64_t>(n));
  }
  if (!offsets->is_array() || offsets->size() != 2 || !as_count((*offsets)[0], t.begin) ||
      !as_count((*offsets)[1], t.end))
    return Error{"\"data_offsets\" " + offsets->dump() + " is not a pair of non-negative integers"};
  if (t.begin > t.end)
    return Error{"\"data_offsets\" [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                 "] ends before it begins"};
  if (t.end > data_size)
    return Error{"\"data_offsets\" [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                 "] run past the end of the data (" + std::to_string(data_size) + " bytes; truncated file?)"};
  if (const std::uint64_t item = item_size(t.dtype); item != 0) {
    std::uint64_t bytes = 0;
    if (!shape_bytes(t.shape, item, bytes) || bytes != t.end - t.begin)
      return Error{"shape " + shape_text(t.shape) + " of " + t.dtype + " needs " +
                   (shape_bytes(t.shape, item, bytes) ? std::to_string(bytes) : "too many") +
                   " bytes, but \"data_offsets\" give " + std::to_string(t.end - t.begin)};
  }
  return t;
}

}  // namespace

bool safetensors_dtype_supported(std::string_view dtype) { return dtype == "F32" || dtype == "F16" || dtype == "BF16"; }

Result<SafetensorsFile> SafetensorsFile::open(const std::filesystem::path& path) {
  auto mapped = MappedFile::map(path);
  if (!mapped) return Error{mapped.error()};
  SafetensorsFile file;
  file.name_ = path.string();
  file.map_ = std::make_unique<MappedFile>(std::move(*mapped));
  const std::string_view bytes = file.map_->bytes();
  return from(std::move(file), bytes);
}


// --- MappedFile ---------------------------------------------------------------------------------


Result<SafetensorsFile> SafetensorsFile::parse(std::string bytes, const std::string& name) {
  SafetensorsFile file;
  file.name_ = name;
  file.owned_ = std::make_unique<std::string>(std::move(bytes));
  const std::string_view view = *file.owned_;
  return from(std::move(file), view);
}

Result<SafetensorsFile> SafetensorsFile::from(SafetensorsFile file, std::string_view bytes) {
  const std::string& name = file.name_;
  if (bytes.size() < 8)
    return Error{name + ": too short for a safetensors file (" + std::to_string(bytes.size()) +
                 " bytes; the header length alone takes 8)"};
  const std::uint64_t header_size = read_le(bytes.data(), 8);
  if (header_size > kMaxHeaderBytes)
    return Error{name + ": the header length " + std::to_string(header_size) +
                 " exceeds the 100 MB limit (not a safetensors file?)"};
  if (header_size > bytes.size() - 8)
    return Error{name + ": the header length " + std::to_string(header_size) + " runs past the end of the file (" +
                 std::to_string(bytes.size()) + " bytes)"};
  const std::string_view header = bytes.substr(8, static_cast<std::size_t>(header_size));
  file.data_ = bytes.substr(8 + static_cast<std::size_t>(header_size));

  // nlohmann keeps the last of duplicate keys silently; a tensor named twice is an error.
  std::set<std::string> seen;
  std::string duplicate;
  const json::parser_callback_t note_keys = [&](int depth, json::parse_event_t event, json& v) {
    if (depth == 1 && event == json::parse_event_t::key && v.is_string() && !seen.insert(v.get<std::string>()).second &&
        duplicate.empty())
      duplicate = v.get<std::string>();
    return true;
  };
  const json j = json::parse(header.begin(), header.end(), note_keys, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error{name + ": the header is not valid JSON"};
  if (!j.is_object()) return Error{name + ": the header is not a JSON object"};
  if (!duplicate.empty()) return Error{name + ": the header names \"" + duplicate + "\" more than once"};

  for (const auto& [key, v] : j.items()) {
    if (key == "__metadata__") {
      const bool strings =
          v.is_object() && std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_string(); });
      if (!strings) return Error{name + ": \"__metadata__\" is not an object of strings"};
      continue;
    }
    auto t = tensor_entry(key, v, file.data_.size());
    if (!t) return Error{name + ": tensor \"" + key + "\": " + t.error()};
    file.tensors_.push_back(std::move(*t));
  }

  auto& ts = file.tensors_;
  std::sort(ts.begin(), ts.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  // Empty ranges hold no bytes and so overlap nothing.
  const TensorInfo* furthest = nullptr;  // the non-empty tensor reaching furthest so far
  for (const TensorInfo& t : ts) {
    if (t.begin == t.end) continue;
    if (furthest != nullptr && t.begin < furthest->end)
      return Error{name + ": tensors \"" + furthest->name + "\" [" + std::to_string(furthest->begin) + ", " +
                   std::to_string(furthest->end) + ") and \"" + t.name + "\" [" + std::to_string(t.begin) + ", " +
                   std::to_string(t.end) + ") overlap"};
    if (furthest == nullptr || t.end > furthest->end) furthest = &t;
  }
  return file;
}

std::vector<std::string> SafetensorsFile::unsupported_tensors() const {
  std::vector<std::string> names;
  for (const TensorInfo& t : tensors_)
    if (!safetensors_dtype_supported(t.dtype)) names.push_back(t.name);
  return names;
}

Result<const TensorInfo*> SafetensorsFile::embedding_tensor(const std::string& name) const {
  std::vector<const TensorInfo*> two_d;
  for (const TensorInfo& t : tensors_)
    if (t.shape.size() == 2) two_d.push_back(&t);
  auto list = [](const std::vector<const TensorInfo*>& ts) {
    std::string s;
    for (const TensorInfo* t : ts) s += (s.empty() ? "" : ", ") + t->name + " " + shape_text(t->shape) + " " + t->dtype;
    return s.empty() ? std::string("none") : s;
  };
  auto usable = [&](const TensorInfo& t) -> Result<const TensorInfo*> {
    if (t.shape.size() != 2)
      return Error{name_ + ": tensor \"" + t.name + "\" has shape " + shape_text(t.shape) +
                   "; embeddings need a 2-D tensor"};
    if (!safetensors_dtype_supported(t.dtype))
      return Error{name_ + ": tensor \"" + t.name + "\" has dtype " + t.dtype +
                   ", which is not supported (F32, F16 and BF16 are)"};
    return &t;
  };

  if (!name.empty()) {
    for (const TensorInfo& t : tensors_)
      if (t.name == name) return usable(t);
    return Error{name_ + ": no tensor is named \"" + name + "\"; the 2-D tensors are: " + list(two_d)};
  }
  std::vector<const TensorInfo*> embed;
  for (const TensorInfo& t : tensors_)
    if (t.name.find("embed_tokens") != std::string::npos) embed.push_back(&t);
  if (embed.size() == 1) return usable(*embed.front());
  if (embed.size() > 1) {
    std::vector<const TensorInfo*> embed_2d;
    for (const TensorInfo* t : embed)
      if (t->shape.size() == 2) embed_2d.push_back(t);
    if (embed_2d.size() == 1) return usable(*embed_2d.front());
    // Gemma 4's per-layer table (embed_tokens_per_layer) beside the token embeddings: the one
    // whose name ends in embed_tokens.weight is the token embeddings.
    std::vector<const TensorInfo*> exact;
    for (const TensorInfo* t : embed_2d)
      if (t->name.ends_with("embed_tokens.weight")) exact.push_back(t);
    if (exact.size() == 1) return usable(*exact.front());
    return Error{name_ + ": several tensors are named like embed_tokens; choose one by name: " + list(embed)};
  }
  if (two_d.size() == 1) return usable(*two_d.front());
  return Error{name_ + ": no tensor name contains \"embed_tokens\" and " +
               (two_d.empty() ? std::string("there is no 2-D tensor")
                              : "there are " + std::to_string(two_d.size()) +
                                    " 2-D tensors; choose one by name: " + list(two_d))};
}

Result<Matrix> SafetensorsFile::rows(const TensorInfo& t, std::span<const std::int64_t> row_ids) const {
  const std::string where = name_ + ": tensor \"" + t.name + "\"";
  if (t.shape.size() != 2) return Error{where + " has shape " + shape_text(t.shape) + ", not a 2-D matrix"};
  if (!safetensors_dtype_supported(t.dtype))
    return Error{where + " has dtype " + t.dtype + ", which is not supported (F32, F16 and BF16 are)"};
  const std::uint64_t item = item_size(t.dtype);
  // Checked again because `t` may come from elsewhere than tensors(): never read outside the map.
  std::uint64_t bytes = 0;
  if (t.shape[0] < 0 || t.shape[1] < 0 || !shape_bytes(t.shape, item, bytes) || t.begin > t.end ||
      t.end > data_.size() || bytes != t.end - t.begin)
    return Error{where + " does not describe bytes of this file"};
  const std::int64_t n_rows = t.shape[0];
  const std::int64_t cols = t.shape[1];
  for (std::int64_t id : row_ids)
    if (id < 0 || id >= n_rows)
      return Error{where + ": row " + std::to_string(id) + " is out of range (the tensor has " +
                   std::to_string(n_rows) + " rows)"};

  enum class Kind { F32, F16, BF16 };
  const Kind kind = t.dtype == "F32" ? Kind::F32 : t.dtype == "F16" ? Kind::F16 : Kind::BF16;
  Matrix out(static_cast<Eigen::Index>(row_ids.size()), static_cast<Eigen::Index>(cols));
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * static_cast<std::size_t>(item);
  for (std::size_t r = 0; r < row_ids.size(); ++r) {
    const char* p = data_.data() + t.begin + static_cast<std::size_t>(row_ids[r]) * row_bytes;
    float* dst = out.data() + static_cast<std::ptrdiff_t>(r) * cols;
    for (std::int64_t c = 0; c < cols; ++c) {
      float v = 0.0f;
      switch (kind) {
        case Kind::F32:
          v = std::bit_cast<float>(static_cast<std::uint32_t>(read_le(p + c * 4, 4)));
          break;
        case Kind::BF16:  // the top half of a float32
          v = std::bit_cast<float>(static_cast<std::uint32_t>(read_le(p + c * 2, 2)) << 16);
          break;
        case Kind::F16: {
          v = half_to_float(static_cast<std::uint16_t>(read_le(p + c * 2, 2)));  // inf or NaN as such: refused below
          break;
        }
      }
      if (!std::isfinite(v))
        return Error{where + ", row " + std::to_string(row_ids[r]) + ": non-finite value (inf or nan) in column " +
                     std::to_string(c)};
      dst[c] = v;
    }
  }
  return out;
}

}  // namespace poslab

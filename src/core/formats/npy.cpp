#include "core/formats/npy.hpp"
#include "base/half.hpp"

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/files.hpp"
#include "base/number_text.hpp"

namespace poslab {

namespace {

constexpr std::string_view kMagic = "\x93" "NUMPY";
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;  // numpy's own headers are < 1 KB

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
};

// Unsigned little-endian integer of `size` bytes starting at p (independent of the host order).
std::uint64_t read_le(const char* p, std::size_t size) {
  std::uint64_t v = 0;
  for (std::size_t k = 0; k < size; ++k)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return v;
}

// A cursor over the header, a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  Result<NpyHeader> parse();

 private:
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool eat(char c) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool eat_word(std::string_view w) {
    skip_space();
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  Result<std::string> string_literal();
  Result<bool> boolean();
  Result<std::uint64_t> integer();
  Result<std::vector<std::uint64_t>> tuple();
  Status value_for(const std::string& key, NpyHeader& h);

  std::string_view s_;
  std::size_t i_ = 0;
};

Result<std::string> HeaderParser::string_literal() {
  skip_space();
  if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return Error{"expected a quoted string"};
  const char quote = s_[i_++];
  const std::size_t end = s_.find(quote, i_);
  if (end == std::string_view::npos) return Error{"unterminated string"};
  std::string text(s_.substr(i_, end - i_));
  if (text.find('\\') != std::string::npos) return Error{"escapes in strings are not supported"};
  i_ = end + 1;
  return text;
}

Result<bool> HeaderParser::boolean() {
  if (eat_word("True")) return true;
  if (eat_word("False")) return false;
  return Error{"expected True or False for 'fortran_order'"};
}

Result<std::uint64_t> HeaderParser::integer() {
  skip_space();
  std::uint64_t v = 0;
  const std::size_t start = i_;
  for (; i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; ++i_) {
    v = v * 10 + static_cast<std::uint64_t>(s_[i_] - '0');
    if (v > static_cast<std::uint64_t>(INT_MAX)) return Error{"a dimension of 'shape' is too large"};
  }
  if (i_ == start) return Error{"expected a non-negative integer in 'shape'"};
  if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 wrote long integers as 3L
  return v;
}

Result<std::vector<std::uint64_t>> HeaderParser::tuple() {
  if (!eat('(')) return Error{"expected a tuple such as (3, 4) for 'shape'"};
  std::vector<std::uint64_t> dims;
  while (!eat(')')) {
    if (dims.size() >= 64) return Error{"'shape' has too many dimensions"};
    auto d = integer();
    if (!d) return Error{d.error()};
    dims.push_back(*d);
    if (!eat(',')) {
      if (!eat(')')) return Error{"expected ',' or ')' in 'shape'"};
      break;
    }
  }
  return dims;
}

Status HeaderParser::value_for(const std::string& key, NpyHeader& h) {
  if (key == "descr") {
    skip_space();
    if (i_ < s_.size() && s_[i_] == '[')
      return Error{"structured (record) dtypes are not supported; expected a float matrix"};
    auto d = string_literal();
    if (!d) return Error{d.error()};
    h.descr = *d;
  } else if (key == "fortran_order") {
    auto b = boolean();
    if (!b) return Error{b.error()};
    h.fortran_order = *b;
  } else if (key == "shape") {
    auto t = tuple();
    if (!t) return Error{t.error()};
    h.shape = *t;
  } else {
    return Error{"unexpected key '" + key + "' (expected descr, fortran_order, shape)"};
  }
  return Ok{};
}

Result<NpyHeader> HeaderParser::parse() {
  NpyHeader h;
  int seen = 0;  // bit per key: descr, fortran_order, shape
  if (!eat('{')) return Error{"the header is not a Python dict"};
  while (!eat('}')) {
    auto key = string_literal();
    if (!key) return Error{key.error()};
    const int bit = *key == "descr" ? 1 : *key == "fortran_order" ? 2 : *key == "shape" ? 4 : 0;
    if ((seen & bit) != 0) return Error{"key '" + *key + "' appears twice"};
    seen |= bit;
    if (!eat(':')) return Error{"expected ':' after '" + *key + "'"};
    if (auto v = value_for(*key, h); !v) return Error{v.error()};
    if (!eat(',')) {
      if (!eat('}')) return Error{"expected ',' or '}' in the header dict"};
      break;
    }
  }
  skip_space();
  if (i_ != s_.size()) return Error{"unexpected text after the header dict"};
  if (seen != 7) return Error{"the header lacks one of 'descr', 'fortran_order', 'shape'"};
  return h;
}

// Python's spelling of a shape, as numpy prints it: (3,), (2, 3), ().
std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t k = 0; k < shape.size(); ++k)
    s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

enum class DType { F16, F32, F64 };

struct DTypeInfo {
  DType type;
  std::size_t size;
  const char* name;
};

Result<DTypeInfo> dtype_of(const std::string& descr) {
  if (descr == "<f2") return DTypeInfo{DType::F16, 2, "float16"};
  if (descr == "<f4") return DTypeInfo{DType::F32, 4, "float32"};
  if (descr == "<f8") return DTypeInfo{DType::F64, 8, "float64"};
  if (!descr.empty() && descr[0] == '>')
    return Error{"dtype '" + descr + "' is big-endian; only little-endian files are supported"};
  return Error{"dtype '" + descr + "' is not supported; expected float16, float32 or float64 "
               "('<f2', '<f4', '<f8')"};
}

// One element as float, or an error for inf/nan (and float64 values beyond float's range).
Result<float> decode(const char* p, DType type) {
  switch (type) {
    case DType::F16: {
      const auto h = static_cast<std::uint16_t>(read_le(p, 2));
      if (((h >> 10) & 0x1F) == 0x1F) return Error{"non-finite value (inf or nan)"};
      return half_to_float(h);
    }
    case DType::F32: {
      const auto v = std::bit_cast<float>(static_cast<std::uint32_t>(read_le(p, 4)));
      if (!std::isfinite(v)) return Error{"non-finite value (inf or nan)"};
      return v;
    }
    case DType::F64: {
      const auto v = std::bit_cast<double>(read_le(p, 8));
      if (!std::isfinite(v)) return Error{"non-finite value (inf or nan)"};
      if (std::fabs(v) > std::numeric_limits<float>::max())
        return Error{"value " + number_text(v) + " does not fit a float32"};
      return static_cast<float>(v);
    }
  }
  return Error{"unknown dtype"};
}

Result<Matrix> decode_matrix(std::string_view data, int rows, int cols, const DTypeInfo& dt) {
  Matrix m(rows, cols);
  const char* p = data.data();
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c, p += dt.size) {
      auto v = decode(p, dt.type);
      if (!v)
        return Error{v.error() + " at row " + std::to_string(r) + ", column " + std::to_string(c)};
      m(r, c) = *v;
    }
  }
  return m;
}

// Checks the magic and version and returns the header text; `data_start` is set past it.
Result<std::string_view> header_text(std::string_view bytes, std::size_t& data_start) {
  if (bytes.substr(0, kMagic.size()) != kMagic)
    return Error{"not a NumPy .npy file (the magic string \\x93NUMPY is missing)"};
  if (bytes.size() < kMagic.size() + 2) return Error{"the file ends inside the version field"};
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return Error{"unsupported .npy format version " + std::to_string(major) + "." +
                 std::to_string(minor) + " (1.0, 2.0 and 3.0 are supported)"};
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t prefix = 8 + length_bytes;
  if (bytes.size() < prefix) return Error{"the file ends inside the header length field"};
  const std::uint64_t length = read_le(bytes.data() + 8, length_bytes);
  if (length > kMaxHeaderBytes)
    return Error{"the header length " + std::to_string(length) + " exceeds the 100 MB limit"};
  if (length > bytes.size() - prefix)
    return Error{"the header length " + std::to_string(length) + " runs past the end of the file (" +
                 std::to_string(bytes.size()) + " bytes)"};
  data_start = prefix + static_cast<std::size_t>(length);
  return bytes.substr(prefix, static_cast<std::size_t>(length));
}

// The header's promises checked against the data that follows it.
Result<Matrix> matrix_from(const NpyHeader& h, std::string_view data) {
  auto dt = dtype_of(h.descr);
  if (!dt) return Error{dt.error()};
  if (h.fortran_order)
    return Error{"the array is in Fortran (column-major) order; save it in C order "
                 "(np.ascontiguousarray) instead"};
  if (h.shape.size() != 2)
    return Error{"the array has shape " + shape_text(h.shape) + "; expected a 2-D matrix"};
  const std::uint64_t rows = h.shape[0], cols = h.shape[1];
  if (rows == 0 || cols == 0) return Error{"the matrix of shape " + shape_text(h.shape) + " is empty"};
  // rows, cols < 2³¹, so rows·cols < 2⁶² and the comparison below cannot overflow.
  const std::uint64_t count = rows * cols;
  const std::uint64_t available = data.size() / dt->size;
  if (data.size() % dt->size != 0 || available != count)
    return Error{"shape " + shape_text(h.shape) + " of " + dt->name + " needs " +
                 std::to_string(count) + " × " + std::to_string(dt->size) + " bytes, but " +
                 std::to_string(data.size()) + " bytes follow the header" +
                 (available < count ? " (truncated file?)" : "")};
  return decode_matrix(data, static_cast<int>(rows), static_cast<int>(cols), *dt);
}

}  // namespace

Result<Matrix> parse_npy_matrix(std::string_view bytes, const std::string& name, std::string* dtype) {
  std::size_t data_start = 0;
  auto header = header_text(bytes, data_start);
  if (!header) return Error{name + ": " + header.error()};
  auto h = HeaderParser(*header).parse();
  if (!h) return Error{name + ": malformed .npy header: " + h.error()};
  auto m = matrix_from(*h, bytes.substr(data_start));
  if (!m) return Error{name + ": " + m.error()};
  if (dtype) *dtype = dtype_of(h->descr)->name;
  return m;
}

Result<Matrix> load_npy_matrix(const std::filesystem::path& path, std::string* dtype) {
  auto bytes = read_whole_file(path, kMatrixFile);
  if (!bytes) return Error{bytes.error()};
  return parse_npy_matrix(*bytes, path.string(), dtype);
}

}  // namespace poslab

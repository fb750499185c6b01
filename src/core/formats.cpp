#include "core/formats.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/files.hpp"
#include "core/npy.hpp"

namespace poslab {

namespace {

constexpr long long kMaxDim = 1'000'000;                      // the text loader's limit too
constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 31;  // 8 GB of float32
constexpr std::string_view kNpyMagic = "\x93NUMPY";           // \x93 then "NUMPY" (N is not a hex digit)

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

bool parse_int(std::string_view s, long long& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end;
}

// Little-endian float32 at p, independent of the host's byte order.
float read_f32_le(const char* p) {
  std::uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return std::bit_cast<float>(v);
}

// Words in messages: at most 40 bytes, so that a garbage "word" of megabytes stays readable.
std::string shorten(std::string_view s) { return s.size() > 40 ? std::string(s.substr(0, 40)) + "…" : std::string(s); }

// The "count dim" pair from the first line of a word2vec file, if the line is one.
bool parse_header(std::string_view line, long long& count, long long& dim) {
  auto fields = split_fields(line);
  return fields.size() == 2 && parse_int(fields[0], count) && parse_int(fields[1], dim);
}

}  // namespace

Result<EmbeddingTable> parse_word2vec_binary(std::string_view bytes, const std::string& name) {
  const std::size_t eol = bytes.find('\n');
  if (eol == std::string_view::npos)
    return Error{name + ": no header line \"count dim\" (empty file, or not word2vec binary)"};
  long long count = 0, dim = 0;
  if (!parse_header(bytes.substr(0, eol), count, dim))
    return Error{name + ": the first line \"" + shorten(bytes.substr(0, eol)) +
                 "\" is not a word2vec header \"count dim\""};
  if (count <= 0 || dim <= 0 || dim > kMaxDim || count > INT_MAX)
    return Error{name + ": the word2vec header has an invalid count (" + std::to_string(count) + ") or dimension (" +
                 std::to_string(dim) + ")"};
  const auto n_words = static_cast<std::uint64_t>(count);
  const auto n_dim = static_cast<std::uint64_t>(dim);
  if (n_words * n_dim > kMaxValues)
    return Error{name + ": the word2vec header announces " + std::to_string(count) + " × " + std::to_string(dim) +
                 " values, more than the 2^31 supported"};
  const std::size_t vector_bytes = static_cast<std::size_t>(n_dim) * 4;
  // Checked before allocating, so that a lying header cannot ask for gigabytes: every record
  // needs at least a one-byte word, a space and its vector.
  const std::uint64_t least = n_words * (vector_bytes + 2);
  std::size_t pos = eol + 1;
  if (bytes.size() - pos < least)
    return Error{name + ": the header announces " + std::to_string(count) + " words of " + std::to_string(dim) +
                 " floats (at least " + std::to_string(least) + " bytes) but only " +
                 std::to_string(bytes.size() - pos) + " bytes follow (truncated file?)"};

  std::vector<std::string> words;
  words.reserve(static_cast<std::size_t>(n_words));
  Matrix vectors(static_cast<Eigen::Index>(count), static_cast<Eigen::Index>(dim));
  for (long long k = 0; k < count; ++k) {
    auto record_error = [&](const std::string& what) {
      return Error{name + ": record " + std::to_string(k + 1) + " of " + std::to_string(count) + ": " + what};
    };
    while (pos < bytes.size() && bytes[pos] == '\n') ++pos;  // the previous record's newline
    const std::size_t space = bytes.find(' ', pos);
    if (space == std::string_view::npos) return record_error("the file ends inside the word (truncated file?)");
    const std::string_view word = bytes.substr(pos, space - pos);
    if (word.empty()) return record_error("the word is empty");
    // A line break inside a word means the previous vector had another length (or the file
    // is text, not binary).
    if (word.find('\n') != std::string_view::npos)
      return record_error("the word \"" + shorten(word) +
                          "\" contains a line break (wrong dimension, or not a binary file?)");
    pos = space + 1;
    if (bytes.size() - pos < vector_bytes)
      return record_error("the file ends inside the vector of \"" + shorten(word) + "\" (truncated file?)");
    float* row = vectors.data() + k * dim;
    for (long long c = 0; c < dim; ++c) {
      const float v = read_f32_le(bytes.data() + pos + static_cast<std::size_t>(c) * 4);
      if (!std::isfinite(v))
        return record_error("non-finite value (inf or nan) at position " + std::to_string(c + 1) + " of " +
                            std::to_string(dim) + " in the vector of \"" + shorten(word) + "\"");
      row[c] = v;
    }
    pos += vector_bytes;
    words.emplace_back(word);
  }
  while (pos < bytes.size() && (bytes[pos] == '\n' || is_blank(bytes[pos]))) ++pos;
  if (pos != bytes.size())
    return Error{name + ": " + std::to_string(bytes.size() - pos) + " bytes follow the " + std::to_string(count) +
                 " words that the header announces (wrong count?)"};
  return EmbeddingTable(std::move(words), std::move(vectors), name);
}

Result<EmbeddingTable> load_word2vec_binary(const std::filesystem::path& path) {
  auto bytes = read_whole_file(path);
  if (!bytes) return Error{bytes.error()};
  return parse_word2vec_binary(*bytes, path.string());
}

Result<EmbeddingTable> load_npy_embeddings(const std::filesystem::path& npy, const std::filesystem::path& vocab) {
  auto matrix = load_npy_matrix(npy);
  if (!matrix) return Error{matrix.error()};
  const auto rows = static_cast<std::size_t>(matrix->rows());

  std::filesystem::path vocab_path = vocab;
  if (vocab_path.empty()) {
    std::string stem = npy.filename().string();
    if (stem.size() > 4 && stem.ends_with(".npy")) stem.resize(stem.size() - 4);
    const auto beside = npy.parent_path() / (stem + ".vocab.txt");
    std::error_code ec;
    // Anything by that name is used, so that an unreadable vocabulary is reported, not ignored.
    if (std::filesystem::exists(beside, ec)) vocab_path = beside;
  }

  std::vector<std::string> words;
  words.reserve(rows);
  if (vocab_path.empty()) {
    // No vocabulary: the matrix is indexed by token id, so row k is the token "k".
    for (std::size_t k = 0; k < rows; ++k) words.push_back(std::to_string(k));
  } else {
    auto text = read_whole_file(vocab_path);
    if (!text) return Error{text.error()};
    std::string_view rest = *text;
    if (rest.starts_with("\xEF\xBB\xBF")) rest.remove_prefix(3);  // a UTF-8 byte-order mark
    // A final '\n' ends the last line; it does not start another (empty) one.
    while (!rest.empty()) {
      std::size_t eol = rest.find('\n');
      if (eol == std::string_view::npos) eol = rest.size();
      std::string_view line = rest.substr(0, eol);
      if (line.ends_with('\r')) line.remove_suffix(1);
      words.emplace_back(line);
      rest.remove_prefix(std::min(eol + 1, rest.size()));
    }
    if (words.size() != rows)
      return Error{vocab_path.string() + ": the vocabulary has " + std::to_string(words.size()) +
                   " lines but the matrix " + npy.string() + " has " + std::to_string(rows) +
                   " rows (one token per row is needed)"};
  }
  return EmbeddingTable(std::move(words), std::move(*matrix), npy.string());
}

namespace {

// A safetensors file starts with its header length (little-endian u64, small enough that the
// top three bytes are zero) and a JSON object; text never contains NUL bytes.
bool looks_like_safetensors(std::string_view b) {
  return b.size() >= 9 && b[8] == '{' && b[5] == '\0' && b[6] == '\0' && b[7] == '\0';
}

// A "count dim" line followed by control bytes (raw floats); word2vec text has none.
bool looks_like_word2vec_binary(std::string_view b) {
  const std::size_t eol = b.find('\n');
  long long count = 0, dim = 0;
  if (eol == std::string_view::npos || !parse_header(b.substr(0, eol), count, dim)) return false;
  return std::any_of(b.begin() + static_cast<std::ptrdiff_t>(eol) + 1, b.end(), [](char ch) {
    const auto u = static_cast<unsigned char>(ch);
    return (u < 0x20 && ch != '\n' && ch != '\r' && ch != '\t') || u == 0x7F;
  });
}

}  // namespace

EmbeddingFormat detect_format(const std::filesystem::path& path, std::string_view first_bytes) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  if (first_bytes.starts_with(kNpyMagic)) return EmbeddingFormat::Npy;
  if (ext == ".bin") return EmbeddingFormat::Word2vecBinary;
  if (ext == ".npy") return EmbeddingFormat::Npy;
  if (ext == ".safetensors") return EmbeddingFormat::Safetensors;
  if (looks_like_safetensors(first_bytes)) return EmbeddingFormat::Safetensors;
  if (looks_like_word2vec_binary(first_bytes)) return EmbeddingFormat::Word2vecBinary;
  return EmbeddingFormat::GloveText;
}

}  // namespace poslab

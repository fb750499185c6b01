#include "core/formats/formats.hpp"
#include "core/model/architecture.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/files.hpp"
#include "base/json.hpp"
#include "base/text.hpp"
#include "core/formats/hf_cache_layout.hpp"
#include "core/formats/npy.hpp"
#include "tokenizer/tokenizer.hpp"
#include "core/formats/safetensors.hpp"

#include <nlohmann/json.hpp>

namespace poslab {

namespace {

constexpr long long kMaxDim = 1'000'000;                      // the text loader's limit too
constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 31;  // 8 GB of float32
constexpr std::string_view kNpyMagic = "\x93NUMPY";           // \x93 then "NUMPY" (N is not a hex digit)

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
  auto fields = split_blank_fields(line);
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
  auto bytes = read_whole_file(path, kMatrixFile);
  if (!bytes) return Error{bytes.error()};
  return parse_word2vec_binary(*bytes, path.string());
}

namespace {

// NAME.vocab.txt beside NAME.EXT, if anything by that name exists (so that an unreadable
// vocabulary is reported, not ignored); else empty.
std::filesystem::path vocabulary_beside(const std::filesystem::path& file, std::string_view ext) {
  std::string stem = file.filename().string();
  if (stem.size() > ext.size() && stem.ends_with(ext)) stem.resize(stem.size() - ext.size());
  const auto beside = file.parent_path() / (stem + ".vocab.txt");
  std::error_code ec;
  return std::filesystem::exists(beside, ec) ? beside : std::filesystem::path();
}

// One token per line, line k naming row k; exactly `rows` lines.
Result<std::vector<std::string>> read_vocabulary(const std::filesystem::path& vocab_path, std::size_t rows,
                                                 const std::string& matrix_name) {
  auto text = read_whole_file(vocab_path, kVocabularyFile);
  if (!text) return Error{text.error()};
  std::vector<std::string> words;
  words.reserve(rows);
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
    return Error{vocab_path.string() + ": the vocabulary has " + std::to_string(words.size()) + " lines but the matrix " +
                 matrix_name + " has " + std::to_string(rows) + " rows (one token per row is needed)"};
  return words;
}

// A tensor of a mapped safetensors file as rows on demand.
class SafetensorsRows final : public RowSource {
 public:
  SafetensorsRows(SafetensorsFile file, const TensorInfo* tensor) : file_(std::move(file)), tensor_(tensor) {}
  int rows() const override { return static_cast<int>(tensor_->shape[0]); }
  int dim() const override { return static_cast<int>(tensor_->shape[1]); }
  std::string dtype() const override { return tensor_->dtype; }
  Result<Matrix> gather(std::span<const std::int64_t> ids) const override { return file_.rows(*tensor_, ids); }
  const std::string& tensor_name() const { return tensor_->name; }

 private:
  SafetensorsFile file_;      // owns the mapping; moving it keeps the TensorInfo addresses
  const TensorInfo* tensor_;  // inside file_
};

Result<EmbeddingTable> table_from_tensor(const std::filesystem::path& file, const std::string& tensor,
                                         std::vector<std::string> words, std::shared_ptr<const BpeTokenizer> tokenizer) {
  auto opened = SafetensorsFile::open(file);
  if (!opened) return Error{opened.error()};
  auto info = opened->embedding_tensor(tensor);
  if (!info) return Error{info.error()};
  const TensorInfo* t = *info;
  if (t->shape[0] > INT_MAX || t->shape[1] > INT_MAX) return Error{file.string() + ": tensor " + t->name + " is too large"};
  if (!words.empty() && words.size() != static_cast<std::size_t>(t->shape[0]))
    return Error{file.string() + ": the vocabulary has " + std::to_string(words.size()) + " tokens but " + t->name + " has " +
                 std::to_string(t->shape[0]) + " rows"};
  auto rows = std::make_shared<SafetensorsRows>(std::move(*opened), t);
  EmbeddingTable table(std::move(words), std::move(rows), file.string() + " [" + t->name + "]");
  if (tokenizer) {
    if (tokenizer->vocab_size() > table.size())
      return Error{file.string() + ": the tokenizer has " + std::to_string(tokenizer->vocab_size()) + " tokens but " +
                   t->name + " only " + std::to_string(table.size()) + " rows"};
    table.set_tokenizer(std::move(tokenizer));
  }
  return table;
}

}  // namespace

Result<EmbeddingTable> load_npy_embeddings(const std::filesystem::path& npy, const std::filesystem::path& vocab) {
  std::string dtype;
  auto matrix = load_npy_matrix(npy, &dtype);
  if (!matrix) return Error{matrix.error()};
  const auto rows = static_cast<std::size_t>(matrix->rows());
  const std::filesystem::path vocab_path = vocab.empty() ? vocabulary_beside(npy, ".npy") : vocab;
  std::vector<std::string> words;
  if (vocab_path.empty()) {
    // No vocabulary: the matrix is indexed by token id, so row k is the token "k".
    for (std::size_t k = 0; k < rows; ++k) words.push_back(std::to_string(k));
  } else {
    auto read = read_vocabulary(vocab_path, rows, npy.string());
    if (!read) return Error{read.error()};
    words = std::move(*read);
  }
  EmbeddingTable table(std::move(words), std::move(*matrix), npy.string());
  table.set_stored_dtype(dtype);  // poslab info reports the file's own type
  return table;
}

Result<EmbeddingTable> load_safetensors_embeddings(const std::filesystem::path& file, const std::filesystem::path& vocab,
                                                   const std::string& tensor) {
  const std::filesystem::path vocab_path = vocab.empty() ? vocabulary_beside(file, ".safetensors") : vocab;
  std::vector<std::string> words;
  std::shared_ptr<const BpeTokenizer> tokenizer;
  std::error_code ec;
  if (!vocab_path.empty()) {
    // The row count comes from the tensor; read the lines now and check them against it there.
    auto opened = SafetensorsFile::open(file);
    if (!opened) return Error{opened.error()};
    auto info = opened->embedding_tensor(tensor);
    if (!info) return Error{info.error()};
    auto read = read_vocabulary(vocab_path, static_cast<std::size_t>((*info)->shape[0]), file.string());
    if (!read) return Error{read.error()};
    words = std::move(*read);
  } else if (const auto beside = file.parent_path() / "tokenizer.json"; std::filesystem::exists(beside, ec)) {
    auto loaded = BpeTokenizer::load(beside);
    if (!loaded) return Error{loaded.error()};
    tokenizer = std::make_shared<const BpeTokenizer>(std::move(*loaded));
  }
  return table_from_tensor(file, tensor, std::move(words), std::move(tokenizer));
}

Result<std::filesystem::path> resolve_model_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return Error{dir.string() + ": not a folder"};
  const std::filesystem::path snapshots = hf_cache::snapshots(dir);
  if (!std::filesystem::is_directory(snapshots, ec)) return dir;
  // A Hugging Face cache folder: refs/main names the snapshot; else the only or newest one.
  if (auto ref = read_whole_file(hf_cache::ref(dir, "main"), kSmallTextFile)) {
    std::string rev = *ref;
    while (!rev.empty() && std::isspace(static_cast<unsigned char>(rev.back()))) rev.pop_back();
    if (!rev.empty() && rev.find('/') == std::string::npos && std::filesystem::is_directory(hf_cache::snapshot(dir, rev), ec))
      return hf_cache::snapshot(dir, rev);
  }
  std::filesystem::path newest;
  std::filesystem::file_time_type newest_time{};
  for (const auto& entry : std::filesystem::directory_iterator(snapshots, ec)) {
    if (!entry.is_directory(ec)) continue;
    const auto t = entry.last_write_time(ec);
    if (newest.empty() || t > newest_time) newest = entry.path(), newest_time = t;
  }
  if (newest.empty()) return Error{snapshots.string() + ": no snapshot in this Hugging Face cache folder"};
  return newest;
}

Result<EmbeddingTable> load_model_folder(const std::filesystem::path& path, const std::string& tensor) {
  std::error_code ec;
  auto resolved = resolve_model_folder(path);
  if (!resolved) return Error{resolved.error()};
  const std::filesystem::path dir = *resolved;
  // The embedding table's names in every family of the architecture table, Llama's first.
  const std::vector<std::string> usual = embedding_tensor_names();
  std::string wanted = tensor.empty() ? usual.front() : tensor;
  std::filesystem::path weights = dir / "model.safetensors";
  if (!std::filesystem::exists(weights, ec)) {
    // Sharded checkpoints: the index names the shard that holds each tensor.
    const auto index_path = dir / "model.safetensors.index.json";
    auto index = read_whole_file(index_path, kJsonConfigFile);
    if (!index) return Error{dir.string() + ": a model folder needs model.safetensors or model.safetensors.index.json"};
    const auto json = nlohmann::json::parse(*index, nullptr, false);
    const nlohmann::json* weight_map = json_member(json, "weight_map", &nlohmann::json::is_object);
    if (!weight_map) return Error{index_path.string() + ": no weight_map"};
    const auto& map = *weight_map;
    if (tensor.empty())
      for (const std::string& name : usual)
        if (map.contains(name)) {
          wanted = name;
          break;
        }
    if (!map.contains(wanted) || !map[wanted].is_string())
      return Error{index_path.string() + ": no shard holds " + wanted + " (choose one with --tensor)"};
    const std::string shard = map[wanted].get<std::string>();
    if (shard.find('/') != std::string::npos || shard.find("..") != std::string::npos)
      return Error{index_path.string() + ": the shard name " + shard + " leaves the folder"};
    weights = dir / shard;
  }
  std::shared_ptr<const BpeTokenizer> tokenizer;
  if (const auto tok = dir / "tokenizer.json"; std::filesystem::exists(tok, ec)) {
    auto loaded = BpeTokenizer::load(tok);
    if (!loaded) return Error{loaded.error()};
    tokenizer = std::make_shared<const BpeTokenizer>(std::move(*loaded));
  }
  auto opened = SafetensorsFile::open(weights);
  if (!opened) return Error{opened.error()};
  // The tensor by its exact name when present, else the usual search (embed_tokens, the only 2-D).
  bool exact = false;
  for (const std::string& name : tensor.empty() ? usual : std::vector<std::string>{wanted})
    for (const TensorInfo& t : opened->tensors())
      if (!exact && t.name == name) {
        exact = true;
        wanted = name;
      }
  return table_from_tensor(weights, exact ? wanted : tensor, {}, std::move(tokenizer));
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

Result<EmbeddingTable> load_embeddings_file(const std::filesystem::path& path, const std::filesystem::path& vocab,
                                            const std::string& tensor, const LoadControl* control) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return load_model_folder(path, tensor);
  // The first bytes tell the reader; a pipe or a device is refused here, before any reader waits on it.
  auto file = ReadOnlyFile::open(path);
  if (!file) return Error{file.error()};
  std::string head(std::min<std::size_t>(64, file->size()), '\0');
  if (auto s = file->read_at(0, head.data(), head.size()); !s) return Error{s.error()};
  switch (detect_format(path, head)) {
    case EmbeddingFormat::Word2vecBinary: return load_word2vec_binary(path);
    case EmbeddingFormat::Npy: return load_npy_embeddings(path, vocab);
    case EmbeddingFormat::Safetensors: return load_safetensors_embeddings(path, vocab, tensor);
    case EmbeddingFormat::GloveText: break;
  }
  return load_text_embeddings(path, control);
}

}  // namespace poslab

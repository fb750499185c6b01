#include "core/embeddings.hpp"

#include <charconv>
#include <cmath>
#include <fstream>

#include "core/files.hpp"
#include "core/formats.hpp"

namespace poslab {

EmbeddingTable::EmbeddingTable(std::vector<std::string> words, Matrix vectors, std::string source)
    : words_(std::move(words)), vectors_(std::move(vectors)), source_(std::move(source)) {
  index_.reserve(words_.size());
  for (int i = 0; i < size(); ++i) {
    if (!index_.emplace(words_[static_cast<std::size_t>(i)], i).second) ++duplicates_;
  }
  if (vectors_.size() > 0) {
    const double mean = vectors_.cast<double>().mean();
    const double var = (vectors_.cast<double>().array() - mean).square().mean();
    component_std_ = static_cast<float>(std::sqrt(var));
    if (!(component_std_ > 0.0f)) component_std_ = 1.0f;
  }
}

EmbeddingTable::EmbeddingTable(std::vector<std::string> words, std::shared_ptr<const RowSource> rows, std::string source)
    : words_(std::move(words)), rows_(std::move(rows)), source_(std::move(source)) {
  if (words_.empty())
    for (int i = 0; i < rows_->rows(); ++i) words_.push_back(std::to_string(i));
  index_.reserve(words_.size());
  for (int i = 0; i < size(); ++i)
    if (!index_.emplace(words_[static_cast<std::size_t>(i)], i).second) ++duplicates_;
  // The scale for unknown tokens from a sample of rows spread over the table.
  std::vector<std::int64_t> sample;
  const int n = rows_->rows(), step = std::max(1, n / 256);
  for (int i = 0; i < n; i += step) sample.push_back(i);
  if (auto m = rows_->gather(sample); m && m->size() > 0) {
    const double mean = m->cast<double>().mean();
    const double var = (m->cast<double>().array() - mean).square().mean();
    component_std_ = static_cast<float>(std::sqrt(var));
    if (!(component_std_ > 0.0f)) component_std_ = 1.0f;
  }
}

Result<RowVector> EmbeddingTable::row(int r) const {
  if (r < 0 || r >= (rows_ ? rows_->rows() : static_cast<int>(vectors_.rows())))
    return Error{source_ + ": row " + std::to_string(r) + " is outside the table"};
  if (!rows_) return RowVector(vectors_.row(r));
  const std::int64_t id = r;
  auto m = rows_->gather(std::span<const std::int64_t>(&id, 1));
  if (!m) return Error{m.error()};
  return RowVector(m->row(0));
}

int EmbeddingTable::find(const std::string& word) const {
  auto it = index_.find(word);
  return it == index_.end() ? -1 : it->second;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Splits a line into fields separated by spaces or tabs.
std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

bool parse_float(std::string_view s, float& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

bool parse_int(std::string_view s, long long& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end;
}

Error line_error(const std::string& name, long long line, const std::string& what) {
  return Error{name + ":" + std::to_string(line) + ": " + what};
}

std::string shorten(std::string_view s) {
  return s.size() > 40 ? std::string(s.substr(0, 40)) + "…" : std::string(s);
}

}  // namespace

Result<EmbeddingTable> parse_text_embeddings(std::string_view text, const std::string& name) {
  std::vector<std::string> words;
  std::vector<float> values;
  long long declared_count = -1;
  int dim = -1;
  long long line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    auto fields = split_fields(line);
    if (fields.empty()) continue;  // blank lines (a trailing newline, say) are harmless
    if (line_no == 1 && fields.size() == 2) {
      long long count = 0, d = 0;
      if (parse_int(fields[0], count) && parse_int(fields[1], d)) {
        if (count <= 0 || d <= 0 || d > 1'000'000)
          return line_error(name, line_no, "word2vec header has an invalid count or dimension");
        declared_count = count;
        dim = static_cast<int>(d);
        continue;
      }
    }
    if (fields.size() < 2)
      return line_error(name, line_no, "expected a word followed by numbers, found only \"" +
                                           shorten(fields[0]) + "\"");
    const int numbers = static_cast<int>(fields.size()) - 1;
    if (dim < 0) dim = numbers;
    if (numbers != dim)
      return line_error(name, line_no,
                        "expected " + std::to_string(dim) + " numbers after the word \"" +
                            shorten(fields[0]) + "\", found " + std::to_string(numbers));
    words.emplace_back(fields[0]);
    for (int j = 1; j <= numbers; ++j) {
      float v = 0.0f;
      if (!parse_float(fields[static_cast<std::size_t>(j)], v))
        return line_error(name, line_no,
                          "\"" + shorten(fields[static_cast<std::size_t>(j)]) +
                              "\" is not a finite number (column " + std::to_string(j + 1) + ")");
      values.push_back(v);
    }
  }
  if (words.empty()) return Error{name + ": no embeddings found (the file is empty)"};
  if (declared_count >= 0 && declared_count != static_cast<long long>(words.size()))
    return Error{name + ": the word2vec header announces " + std::to_string(declared_count) +
                 " words but the file has " + std::to_string(words.size()) +
                 " (truncated file?)"};
  Matrix m = Eigen::Map<Matrix>(values.data(), static_cast<Eigen::Index>(words.size()), dim);
  return EmbeddingTable(std::move(words), std::move(m), name);
}

Result<EmbeddingTable> load_text_embeddings(const std::filesystem::path& path) {
  auto bytes = read_whole_file(path);
  if (!bytes) return Error{bytes.error()};
  return parse_text_embeddings(*bytes, path.string());
}

Result<EmbeddingTable> load_embeddings_file(const std::filesystem::path& path, const std::filesystem::path& vocab,
                                            const std::string& tensor) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return load_model_folder(path, tensor);
  std::string head(64, '\0');
  {
    std::ifstream in(path, std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  }
  switch (detect_format(path, head)) {
    case EmbeddingFormat::Word2vecBinary: return load_word2vec_binary(path);
    case EmbeddingFormat::Npy: return load_npy_embeddings(path, vocab);
    case EmbeddingFormat::Safetensors: return load_safetensors_embeddings(path, vocab, tensor);
    case EmbeddingFormat::GloveText: break;
  }
  return load_text_embeddings(path);
}

}  // namespace poslab

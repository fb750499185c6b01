#include "core/formats/embeddings.hpp"

#include <charconv>
#include <cmath>
#include <fstream>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/files.hpp"
#include "base/text.hpp"

namespace poslab {

EmbeddingTable::EmbeddingTable(std::vector<std::string> words, Matrix vectors, std::string source)
    : words_(std::move(words)), vectors_(std::move(vectors)), source_(std::move(source)) {
  index_.reserve(words_.size());
  for (int i = 0; i < size(); ++i) {
    if (!index_.emplace(words_[static_cast<std::size_t>(i)], i).second) ++duplicates_;
  }
  if (vectors_.size() > 0) {
    // The scale of unknown tokens' vectors: the spread of (up to) 4096 rows spread over the table.
    const Eigen::Index step = std::max<Eigen::Index>(1, vectors_.rows() / 4096);
    double sum = 0.0, sum2 = 0.0, n = 0.0;
    for (Eigen::Index r = 0; r < vectors_.rows(); r += step) {
      const auto row = vectors_.row(r).cast<double>();
      sum += row.sum();
      sum2 += row.squaredNorm();
      n += static_cast<double>(row.size());
    }
    const double mean = sum / n;
    component_std_ = static_cast<float>(std::sqrt(std::max(0.0, sum2 / n - mean * mean)));
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

// Exact powers of ten as floats (10^10 is the last one a float holds exactly).
constexpr float kPow10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

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

// Reads the number at `p` up to the next space, tab or '\r' (or `end`), leaving `p` there. The
// plain decimals embedding files are made of ("-0.038194") take a fast path while scanning: with
// at most 7 digits (< 2^24) and 10^10 as the divisor, both are exact floats and one division
// rounds correctly (Clinger's fast path), so the value equals from_chars'. Anything else is
// handed to parse_float whole.
bool scan_float(const char*& p, const char* end, float& out) {
  const char* start = p;
  bool negative = false;
  if (p < end && *p == '-') negative = true, ++p;
  std::uint32_t digits = 0;
  int count = 0, fraction = 0;
  bool seen_point = false;
  for (; p < end; ++p) {
    const char c = *p;
    if (c >= '0' && c <= '9') {
      digits = digits * 10 + static_cast<std::uint32_t>(c - '0');
      fraction += seen_point;
      ++count;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  const bool at_field_end = p == end || is_blank(*p);
  if (at_field_end && count > 0 && count <= 7 && fraction <= 10) {
    const float v = static_cast<float>(digits) / kPow10[fraction];
    out = negative ? -v : v;
    return true;
  }
  while (p < end && !is_blank(*p)) ++p;  // the whole field, for the exact parser
  return parse_float(std::string_view(start, static_cast<std::size_t>(p - start)), out);
}

Error line_error(const std::string& name, long long line, const std::string& what) {
  return Error{name + ":" + std::to_string(line) + ": " + what};
}

std::string shorten(std::string_view s) {
  return s.size() > 40 ? std::string(s.substr(0, 40)) + "…" : std::string(s);
}

}  // namespace

namespace {

// One chunk of whole lines, parsed on its own: its words and values, or its first error.
struct ChunkResult {
  std::vector<std::string> words;
  std::vector<float> values;
  bool failed = false;
  std::size_t error_line_start = 0;  // byte offset of the failing line (for its line number)
  std::string error;
  std::string read_error;  // the chunk could not be read at all (the file changed meanwhile)
};

// The parsing threads: OpenMP's, or this one alone where it is not compiled in (the fuzz build).
int parsing_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
int parsing_thread() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// Where the text comes from: bytes in memory as they are, or a file read piece by piece. A file
// is read, not mapped: one that another program cuts short while it loads is then an error
// instead of a SIGBUS, and each 4 MB piece is copied into a buffer that stays in cache.
class TextSource {
 public:
  virtual ~TextSource() = default;
  virtual std::size_t size() const = 0;
  // Bytes [offset, offset + length) (offset + length ≤ size()): a view of memory, or a copy in `scratch`.
  virtual Result<std::string_view> bytes(std::size_t offset, std::size_t length, std::string& scratch) const = 0;
};

class MemoryText final : public TextSource {
 public:
  explicit MemoryText(std::string_view text) : text_(text) {}
  std::size_t size() const override { return text_.size(); }
  Result<std::string_view> bytes(std::size_t offset, std::size_t length, std::string&) const override {
    return text_.substr(offset, length);
  }

 private:
  std::string_view text_;
};

class FileText final : public TextSource {
 public:
  explicit FileText(const ReadOnlyFile& file) : file_(file) {}
  std::size_t size() const override { return file_.size(); }
  Result<std::string_view> bytes(std::size_t offset, std::size_t length, std::string& scratch) const override {
    scratch.resize(length);
    if (auto read = file_.read_at(offset, scratch.data(), length); !read) return Error{read.error()};
    return std::string_view(scratch);
  }

 private:
  const ReadOnlyFile& file_;
};

// The offset of the first '\n' at or after `from`, or size() when there is none.
Result<std::size_t> find_newline(const TextSource& source, std::size_t from, std::string& scratch) {
  std::size_t window = 64u << 10;
  while (from < source.size()) {
    const std::size_t length = std::min(window, source.size() - from);
    auto piece = source.bytes(from, length, scratch);
    if (!piece) return Error{piece.error()};
    if (const auto k = piece->find('\n'); k != std::string_view::npos) return from + k;
    from += length;
    window = std::min<std::size_t>(window * 2, 64u << 20);  // a very long line: read on in bigger steps
  }
  return source.size();
}

// 1 + the number of line breaks before `offset`: the line number of an error there.
Result<long long> line_number_at(const TextSource& source, std::size_t offset, std::string& scratch) {
  long long line = 1;
  for (std::size_t at = 0; at < offset;) {
    const std::size_t length = std::min<std::size_t>(4u << 20, offset - at);
    auto piece = source.bytes(at, length, scratch);
    if (!piece) return Error{piece.error()};
    line += std::count(piece->begin(), piece->end(), '\n');
    at += length;
  }
  return line;
}

// Parses the data lines of text[begin, end) with `dim` numbers each. Blank lines are skipped.
void parse_chunk(std::string_view text, std::size_t begin, std::size_t end, int dim, ChunkResult& out,
                 const LoadControl* control) {
  std::size_t pos = begin;
  std::size_t done_since_report = 0;
  // Room for the chunk at the shortest plausible spelling of a number ("0.1 "), so that the
  // vectors rarely grow (and copy) while parsing.
  out.values.reserve((end - begin) / 4);
  out.words.reserve((end - begin) / (4 * static_cast<std::size_t>(dim) + 1));
  while (pos < end) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos || eol > end) eol = end;
    const std::string_view line = text.substr(pos, eol - pos);
    const std::size_t line_start = pos;
    pos = eol + 1;
    if ((done_since_report += line.size() + 1) > (1u << 20)) {  // report and listen every MiB
      if (control) {
        control->add_progress(done_since_report);
        if (control->cancelled()) return;
      }
      done_since_report = 0;
    }
    std::size_t i = 0;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == line.size()) continue;  // blank lines (a trailing newline, say) are harmless
    const std::size_t word_start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    const std::string_view word = line.substr(word_start, i - word_start);
    auto fail = [&](std::string message) {
      out.failed = true;
      out.error_line_start = line_start;
      out.error = std::move(message);
    };
    int count = 0;
    const std::size_t first_value = out.values.size();
    const char* p = line.data() + i;
    const char* const line_end = line.data() + line.size();
    while (true) {
      while (p < line_end && is_blank(*p)) ++p;
      if (p == line_end) break;
      const char* field = p;
      float v = 0.0f;
      if (!scan_float(p, line_end, v)) {
        const auto* field_end = field;
        while (field_end < line_end && !is_blank(*field_end)) ++field_end;
        return fail("\"" + shorten(std::string_view(field, static_cast<std::size_t>(field_end - field))) +
                    "\" is not a finite number (column " + std::to_string(count + 2) + ")");
      }
      if (count < dim) out.values.push_back(v);
      ++count;
    }
    if (count == 0) return fail("expected a word followed by numbers, found only \"" + shorten(word) + "\"");
    if (count != dim) {
      out.values.resize(first_value);
      return fail("expected " + std::to_string(dim) + " numbers after the word \"" + shorten(word) + "\", found " +
                  std::to_string(count));
    }
    out.words.emplace_back(word);
  }
  if (control) control->add_progress(done_since_report);
}

Result<EmbeddingTable> parse_text(const TextSource& text, const std::string& name, const LoadControl* control) {
  if (control) control->set_total(text.size());
  std::string scratch;
  // The first non-blank line: a word2vec header "count dim", or the first word, which sets dim.
  std::size_t pos = 0, first_line_end = 0;
  long long declared_count = -1;
  int dim = -1;
  long long first_line_no = 0;
  while (pos < text.size() && dim < 0) {
    auto eol = find_newline(text, pos, scratch);
    if (!eol) return Error{eol.error()};
    auto line = text.bytes(pos, *eol - pos, scratch);
    if (!line) return Error{line.error()};
    const auto fields = split_blank_fields(*line);
    ++first_line_no;
    if (fields.empty()) {
      pos = *eol + 1;
      continue;
    }
    long long count = 0, d = 0;
    if (first_line_no == 1 && fields.size() == 2 && parse_int(fields[0], count) && parse_int(fields[1], d)) {
      if (count <= 0 || d <= 0 || d > 1'000'000)
        return line_error(name, first_line_no, "word2vec header has an invalid count or dimension");
      declared_count = count;
      dim = static_cast<int>(d);
      first_line_end = *eol + 1;  // the data starts after the header
    } else {
      if (fields.size() < 2)
        return line_error(name, first_line_no, "expected a word followed by numbers, found only \"" + shorten(fields[0]) + "\"");
      dim = static_cast<int>(fields.size()) - 1;
      first_line_end = pos;  // this line is data
    }
  }
  if (dim < 0) return Error{name + ": no embeddings found (the file is empty)"};

  // Chunks of whole lines, parsed in parallel; the results are joined in file order.
  const std::size_t data = std::min(first_line_end, text.size());
  const std::size_t bytes = text.size() - data;
  const int chunks = static_cast<int>(std::clamp<std::size_t>(bytes / (4u << 20), 1, 256));
  std::vector<std::size_t> bounds{data};
  for (int c = 1; c < chunks; ++c) {
    std::size_t at = data + bytes * static_cast<std::size_t>(c) / static_cast<std::size_t>(chunks);
    at = std::max(at, bounds.back());
    auto nl = find_newline(text, at, scratch);
    if (!nl) return Error{nl.error()};
    bounds.push_back(*nl == text.size() ? text.size() : *nl + 1);
  }
  bounds.push_back(text.size());
  std::vector<ChunkResult> results(static_cast<std::size_t>(chunks));
  std::vector<std::string> buffers(static_cast<std::size_t>(parsing_threads()));  // one per thread, reused
#pragma omp parallel for schedule(dynamic, 1)
  for (int c = 0; c < chunks; ++c) {
    const std::size_t begin = bounds[static_cast<std::size_t>(c)], end = bounds[static_cast<std::size_t>(c) + 1];
    ChunkResult& result = results[static_cast<std::size_t>(c)];
    auto piece = text.bytes(begin, end - begin, buffers[static_cast<std::size_t>(parsing_thread())]);
    if (!piece) {
      result.read_error = piece.error();
      continue;
    }
    parse_chunk(*piece, 0, piece->size(), dim, result, control);
    result.error_line_start += begin;
  }
  std::vector<std::string>().swap(buffers);
  if (control && control->cancelled()) return Error{name + ": loading cancelled"};
  std::size_t total_words = 0;
  for (const ChunkResult& r : results) {
    if (!r.read_error.empty()) return Error{r.read_error};
    if (r.failed) {  // the first failing chunk holds the first error in the file
      auto line = line_number_at(text, r.error_line_start, scratch);
      if (!line) return Error{line.error()};
      return line_error(name, *line, r.error);
    }
    total_words += r.words.size();
  }
  if (total_words == 0) return Error{name + ": no embeddings found (the file is empty)"};
  if (declared_count >= 0 && declared_count != static_cast<long long>(total_words))
    return Error{name + ": the word2vec header announces " + std::to_string(declared_count) + " words but the file has " +
                 std::to_string(total_words) + " (truncated file?)"};
  std::vector<std::string> words(total_words);
  Matrix m(static_cast<Eigen::Index>(total_words), dim);
  std::vector<std::size_t> first_row{0};
  for (const ChunkResult& r : results) first_row.push_back(first_row.back() + r.words.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (int c = 0; c < chunks; ++c) {  // each chunk's rows into place, in parallel
    ChunkResult& r = results[static_cast<std::size_t>(c)];
    const auto at = first_row[static_cast<std::size_t>(c)];
    if (!r.values.empty())
      m.middleRows(static_cast<Eigen::Index>(at), static_cast<Eigen::Index>(r.words.size())) =
          Eigen::Map<const Matrix>(r.values.data(), static_cast<Eigen::Index>(r.words.size()), dim);
    std::move(r.words.begin(), r.words.end(), words.begin() + static_cast<std::ptrdiff_t>(at));
    std::vector<float>().swap(r.values);
  }
  return EmbeddingTable(std::move(words), std::move(m), name);
}

}  // namespace

Result<EmbeddingTable> parse_text_embeddings(std::string_view text, const std::string& name, const LoadControl* control) {
  return parse_text(MemoryText(text), name, control);
}

Result<EmbeddingTable> load_text_embeddings(const std::filesystem::path& path, const LoadControl* control) {
  auto file = ReadOnlyFile::open(path);
  if (!file) return Error{file.error()};
  auto table = parse_text(FileText(*file), path.string(), control);
  // Rewritten in place while it loaded: the rows may mix two versions, so none of them is kept.
  if (table && file->changed()) return Error{path.string() + ": the file changed while it was read; load it again"};
  return table;
}

}  // namespace poslab

#pragma once
// Word embeddings: a vocabulary and a matrix with one row per word.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/matrix.hpp"
#include "base/result.hpp"

namespace poslab {

class BpeTokenizer;

// Progress and cancellation of a load running on another thread: the loader adds the bytes it
// has parsed and stops early (with an error) once cancel() was called. An optional rate limit
// makes a fast disk behave like a slow network drive (`poslab --load-rate`), so that progress,
// Cancel and the drawing window can be seen, and tested, on a machine that parses 300 MB in 0.4 s.
class LoadControl {
 public:
  using Clock = std::chrono::steady_clock;
  // At most `bytes_per_second` bytes parsed per second from set_total on; 0 means no limit.
  void limit_rate(double bytes_per_second) { rate_ = bytes_per_second; }
  void set_total(std::size_t bytes) const {
    start_ = Clock::now();
    total_ = bytes;
  }
  // Called by the parsing threads; with a rate limit, waits until the bytes parsed so far are due.
  void add_progress(std::size_t bytes) const {
    const std::size_t done = done_ += bytes;
    if (rate_ <= 0.0) return;
    const auto due = start_ + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(static_cast<double>(done) / rate_));
    while (Clock::now() < due && !cancelled_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  double fraction() const {
    const std::size_t total = total_;
    return total == 0 ? 0.0 : std::min(1.0, static_cast<double>(done_.load()) / static_cast<double>(total));
  }
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

 private:
  double rate_ = 0.0;
  mutable Clock::time_point start_{};  // set before the parsing threads start, read by them after
  mutable std::atomic<std::size_t> total_{0}, done_{0};
  std::atomic<bool> cancelled_{false};
};

// Rows read on demand, e.g. from a memory-mapped safetensors tensor: a real model's table (128k ×
// 2048 for Llama 3.2 1B) is never copied into memory, only the rows a sentence needs.
class RowSource {
 public:
  virtual ~RowSource() = default;
  virtual int rows() const = 0;
  virtual int dim() const = 0;
  virtual std::string dtype() const = 0;  // as stored: "F32", "BF16", …
  virtual Result<Matrix> gather(std::span<const std::int64_t> ids) const = 0;
};

class EmbeddingTable {
 public:
  EmbeddingTable() = default;
  EmbeddingTable(std::vector<std::string> words, Matrix vectors, std::string source);
  // A table whose rows stay on disk. `words` names row k (empty: the rows are token ids "0", "1", …).
  EmbeddingTable(std::vector<std::string> words, std::shared_ptr<const RowSource> rows, std::string source);

  int size() const { return static_cast<int>(words_.size()); }
  int dim() const { return rows_ ? rows_->dim() : static_cast<int>(vectors_.cols()); }
  const std::string& source() const { return source_; }
  const std::string& word(int row) const { return words_[static_cast<std::size_t>(row)]; }
  // All rows, for a table in memory (empty for one whose rows stay on disk: use row()).
  const Matrix& vectors() const { return vectors_; }
  // Row r, from memory or read from the file.
  Result<RowVector> row(int r) const;
  // How the numbers are stored: "float32" in memory, else the file's dtype.
  std::string dtype() const { return rows_ ? rows_->dtype() : stored_dtype_; }
  // The type the file stored before it was read into float32 (a float16 .npy, say).
  void set_stored_dtype(std::string dtype) { stored_dtype_ = std::move(dtype); }

  // A real model's tokenizer: when set, sentences are split by it and rows are token ids.
  void set_tokenizer(std::shared_ptr<const BpeTokenizer> tokenizer) { tokenizer_ = std::move(tokenizer); }
  const BpeTokenizer* tokenizer() const { return tokenizer_.get(); }
  // Row of the word, or -1 when it is not in the vocabulary.
  int find(const std::string& word) const;
  // Standard deviation of all components: the scale given to vectors of unknown words.
  float component_std() const { return component_std_; }
  // Count of later duplicate words that were ignored while loading (the first one wins).
  int duplicates_ignored() const { return duplicates_; }

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, int> index_;
  Matrix vectors_;
  std::shared_ptr<const RowSource> rows_;
  std::shared_ptr<const BpeTokenizer> tokenizer_;
  std::string source_;
  std::string stored_dtype_ = "float32";
  float component_std_ = 1.0f;
  int duplicates_ = 0;
};

// GloVe text (`word v1 … vd` per line) or word2vec text (the same after a `count dim` header
// line). Every error names the file and the line; nothing is returned half-loaded.
Result<EmbeddingTable> load_text_embeddings(const std::filesystem::path& path, const LoadControl* control = nullptr);

// The same parser on text already in memory; `name` is used in messages.
// Lines are parsed in parallel chunks; errors name the first bad line of the file.
Result<EmbeddingTable> parse_text_embeddings(std::string_view text, const std::string& name,
                                             const LoadControl* control = nullptr);


}  // namespace poslab

#pragma once
// Word embeddings: a vocabulary and a matrix with one row per word.
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/matrix.hpp"
#include "core/result.hpp"

namespace poslab {

class EmbeddingTable {
 public:
  EmbeddingTable() = default;
  EmbeddingTable(std::vector<std::string> words, Matrix vectors, std::string source);

  int size() const { return static_cast<int>(words_.size()); }
  int dim() const { return static_cast<int>(vectors_.cols()); }
  const std::string& source() const { return source_; }
  const std::string& word(int row) const { return words_[static_cast<std::size_t>(row)]; }
  const Matrix& vectors() const { return vectors_; }
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
  std::string source_;
  float component_std_ = 1.0f;
  int duplicates_ = 0;
};

// GloVe text (`word v1 … vd` per line) or word2vec text (the same after a `count dim` header
// line). Every error names the file and the line; nothing is returned half-loaded.
Result<EmbeddingTable> load_text_embeddings(const std::filesystem::path& path);

// The same parser on text already in memory; `name` is used in messages.
Result<EmbeddingTable> parse_text_embeddings(std::string_view text, const std::string& name);

// Any supported file, by its extension and first bytes: GloVe or word2vec text, word2vec
// binary, or NumPy .npy with `vocab` (or NAME.vocab.txt beside it, or token ids). safetensors
// files are read by SafetensorsFile; tables from them need the real-model path.
Result<EmbeddingTable> load_embeddings_file(const std::filesystem::path& path, const std::filesystem::path& vocab);

}  // namespace poslab

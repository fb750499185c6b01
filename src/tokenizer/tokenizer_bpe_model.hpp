#pragma once
// tokenizer.json's BPE "model": the vocabulary and the merges, applied to one word at a time as
// Hugging Face's tokenizers applies them — the lowest-ranked pair first, the leftmost among equal
// ranks — with ignore_merges (a word in the vocabulary is one token), byte_fallback (a character
// the vocabulary lacks becomes its UTF-8 bytes as <0xNN> tokens), unk_token and fuse_unk,
// continuing_subword_prefix and end_of_word_suffix.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.hpp"

namespace poslab {

class BpeModel {
 public:
  // `model` is tokenizer.json's "model" object.
  static Result<BpeModel> parse(const nlohmann::json& model, const std::string& name);

  // Appends the ids of `word`. A character with no token, no byte tokens and no unk_token is left
  // out (tokenizers drops it too) and, with `missing`, appended there.
  void tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const;

  // -1: not in the vocabulary.
  int id_of(const std::string& token) const;
  // Gives `id` the token `text` (an added token), growing the id table as needed.
  void add_token(const std::string& text, int id);
  const std::vector<std::string>& tokens() const { return id_to_token_; }
  bool byte_fallback() const { return byte_fallback_; }

 private:
  struct Merge {
    int rank, id;
  };
  Status read_merges(const nlohmann::json& merges);
  static std::uint64_t pair_key(int left, int right) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) | static_cast<std::uint32_t>(right);
  }
  // The symbols of `word` before any merge (characters, byte tokens, unk), -1 for none.
  void initial_symbols(std::string_view word, std::vector<int>& ids, std::string* missing) const;
  void merge(std::vector<int>& ids) const;

  std::unordered_map<std::string, int> vocab_;
  std::vector<std::string> id_to_token_;
  std::unordered_map<std::uint64_t, Merge> merges_;  // (left id, right id) → rank and merged id
  std::string prefix_, suffix_;                      // continuing_subword_prefix, end_of_word_suffix
  int unk_ = -1;
  bool byte_fallback_ = false, fuse_unk_ = false, ignore_merges_ = false;
  std::string name_;
};

}  // namespace poslab

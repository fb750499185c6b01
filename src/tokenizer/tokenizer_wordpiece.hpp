#pragma once
// tokenizer.json's WordPiece "model" (BERT and its kin), applied to one word at a time as Hugging
// Face's tokenizers applies it: the longest piece of the vocabulary that starts the word, then the
// longest that continues it (written with continuing_subword_prefix, "##"), and so on; a word
// with any part that no piece matches — or longer than max_input_chars_per_word characters — is
// the unk_token as a whole.
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/tokenizer_vocab.hpp"
#include "base/result.hpp"

namespace poslab {

class WordPieceModel {
 public:
  // `model` is tokenizer.json's "model" object, of type WordPiece.
  static Result<WordPieceModel> parse(const nlohmann::json& model, const std::string& name);

  // Appends the ids of `word`. A word the unk_token would stand for is an error when the
  // vocabulary has no unk_token, as tokenizers refuses it.
  Status tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const;

  int id_of(const std::string& token) const { return all_.id_of(token); }
  void add_token(const std::string& text, int id) { all_.set(text, id); }
  const std::vector<std::string>& tokens() const { return all_.tokens(); }
  const std::string& continuing_subword_prefix() const { return prefix_; }

 private:
  // The id of `piece` among the model's own pieces (added tokens are not pieces), -1 if none.
  int piece_id(std::string_view piece) const;

  std::unordered_map<std::string, int, TextHash, std::equal_to<>> pieces_;
  std::size_t longest_ = 0;  // the longest piece, in bytes: no piece is looked for past it
  Vocabulary all_;  // the pieces and the added tokens, for lookups and for reading ids back
  std::string unk_, prefix_;
  std::size_t max_chars_ = 100;
};

}  // namespace poslab

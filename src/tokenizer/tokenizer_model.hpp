#pragma once
// tokenizer.json's "model", whichever kind it is: BPE (tokenizer_bpe_model.hpp), WordPiece
// (tokenizer_wordpiece.hpp) or Unigram (tokenizer_unigram.hpp). The rest of the pipeline only
// asks it for a word's ids and for the vocabulary both ways.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tokenizer/tokenizer_bpe_model.hpp"
#include "tokenizer/tokenizer_unigram.hpp"
#include "tokenizer/tokenizer_wordpiece.hpp"
#include "base/result.hpp"

namespace poslab {

class TokenModel {
 public:
  enum class Kind { Bpe, WordPiece, Unigram };

  TokenModel() = default;  // an empty BPE model

  // By "type"; a file without one is read as the fields say (merges: BPE; a list of
  // [piece, score]: Unigram; else WordPiece). Other kinds (WordLevel) are refused by name.
  static Result<TokenModel> parse(const nlohmann::json& model, const std::string& name);

  // Appends the ids of one word (see each model for what happens to text it has no token for;
  // an error where tokenizers refuses the text).
  Status tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const;
  // -1: neither a token of the model nor an added token.
  int id_of(const std::string& token) const;
  // Gives `id` the token `text` (an added token).
  void add_token(const std::string& text, int id);
  // Every id's token, the added ones included ("" where an id has none).
  const std::vector<std::string>& tokens() const;
  bool byte_fallback() const;
  Kind kind() const { return static_cast<Kind>(model_.index()); }
  // WordPiece's continuing_subword_prefix ("##"), "" for the other kinds.
  std::string continuing_subword_prefix() const;

 private:
  explicit TokenModel(std::variant<BpeModel, WordPieceModel, UnigramModel> model) : model_(std::move(model)) {}
  std::variant<BpeModel, WordPieceModel, UnigramModel> model_;  // in Kind's order
};

}  // namespace poslab

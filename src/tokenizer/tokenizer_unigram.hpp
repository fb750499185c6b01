#pragma once
// tokenizer.json's Unigram "model" (T5, Flan-T5, ALBERT, XLM-R: SentencePiece's unigram language
// model), applied to one word at a time as Hugging Face's tokenizers applies it: the segmentation
// whose pieces' log-probabilities (the vocabulary's scores) add up to the most, found by Viterbi.
// A character that begins no piece of its own length may still be covered by a longer piece;
// where it is not, it is unknown, scored as the lowest score minus 10, and a run of unknown
// characters becomes one unk (unk_id) — or, with byte_fallback, its UTF-8 bytes as <0xNN> pieces
// when the vocabulary has them all.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/tokenizer_vocab.hpp"
#include "base/result.hpp"

namespace poslab {

class UnigramModel {
 public:
  // `model` is tokenizer.json's "model" object, of type Unigram.
  static Result<UnigramModel> parse(const nlohmann::json& model, const std::string& name);

  // Appends the ids of `word`. Without unk_id (tokenizers fails then) an unknown character is
  // left out and, with `missing`, appended there.
  void tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const;
  // The pieces of the best segmentation, as text (unknown runs fused), and where each begins.
  std::vector<std::string> segment(std::string_view word) const;

  int id_of(const std::string& token) const { return all_.id_of(token); }
  void add_token(const std::string& text, int id) { all_.set(text, id); }
  const std::vector<std::string>& tokens() const { return all_.tokens(); }
  bool byte_fallback() const { return byte_fallback_; }

 private:
  // The id of `piece` among the model's pieces (the last of equal pieces, as tokenizers keeps), -1 if none.
  int piece_id(std::string_view piece) const;
  // Appends the ids a fused run of unknown characters stands for.
  void unknown_run(const std::string& text, std::vector<int>& out, std::string* missing) const;

  std::unordered_map<std::string, int> pieces_;
  std::vector<double> scores_;  // by id
  Vocabulary all_;              // the pieces and the added tokens, for lookups and for reading ids back
  std::size_t longest_ = 0;     // the longest piece, in bytes: no match is looked for past it
  double unk_score_ = 0;
  int unk_ = -1;
  bool byte_fallback_ = false;
};

}  // namespace poslab

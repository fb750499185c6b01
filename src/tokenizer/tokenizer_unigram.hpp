#pragma once
// tokenizer.json's Unigram "model" (T5, Flan-T5, ALBERT, XLM-R: SentencePiece's unigram language
// model), applied to one word at a time as Hugging Face's tokenizers applies it: the segmentation
// whose pieces' log-probabilities (the vocabulary's scores) add up to the most, found by Viterbi.
// A character that begins no piece of its own length may still be covered by a longer piece;
// where it is not, it is unknown, scored as the lowest score minus 10, and a run of unknown
// characters becomes one unk (unk_id) — or, with byte_fallback, its UTF-8 bytes as <0xNN> pieces
// when the vocabulary has them all.
#include <cstdint>
#include <functional>
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

  // Appends the ids of `word`. An unknown character without unk_id (and without byte pieces for
  // it) is an error naming it, as tokenizers refuses it.
  Status tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const;

  int id_of(const std::string& token) const { return all_.id_of(token); }
  void add_token(const std::string& text, int id) { all_.set(text, id); }
  const std::vector<std::string>& tokens() const { return all_.tokens(); }
  bool byte_fallback() const { return byte_fallback_; }

 private:
  // The id of `piece` among the model's pieces (the last of equal pieces, as tokenizers keeps), -1 if none.
  int piece_id(std::string_view piece) const;
  // A piece of the best segmentation: its text in the word, and its id (kUnknown for a fused run
  // of unknown characters).
  struct Segment {
    std::string_view text;
    int id;
  };
  static constexpr int kUnknown = -1;
  // The best segmentation, unknown runs (and runs of the unk piece) fused.
  std::vector<Segment> segment(std::string_view word) const;
  // Appends the ids a fused run of unknown characters stands for.
  Status unknown_run(std::string_view text, std::vector<int>& out, std::string* missing) const;
  // The pieces in a byte trie, so that the pieces starting at a point of the word are found in one
  // walk that stops where no piece continues (a lookup per candidate length made each point cost
  // the square of the longest piece).
  void add_to_trie(const std::string& piece, int id);
  std::vector<int> trie_piece_{-1};                  // by node: the piece ending there, or -1; node 0 is the root
  std::unordered_map<std::uint64_t, int> trie_next_;  // node · 256 + byte → node

  std::unordered_map<std::string, int, TextHash, std::equal_to<>> pieces_;
  std::vector<double> scores_;  // by id
  Vocabulary all_;              // the pieces and the added tokens, for lookups and for reading ids back
  double unk_score_ = 0;
  int unk_ = -1;
  bool byte_fallback_ = false;
};

}  // namespace poslab

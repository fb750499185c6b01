#pragma once
// tokenizer.json's "pre_tokenizer": how normalized text is cut into the words that BPE merges
// inside — Split (a String or Regex pattern, each delimiter behaviour, invert), ByteLevel (its
// GPT-2 split and byte alphabet), Metaspace (SentencePiece's "▁"), Digits, Punctuation,
// Whitespace, WhitespaceSplit, BertPreTokenizer, CharDelimiterSplit and Sequence of them.
#include <array>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer_text.hpp"
#include "base/result.hpp"

namespace poslab {

// What a delimiter (a match of a pattern) becomes when a piece is split.
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

// Splits `text` at the matches of `pattern` (with `invert`, the matches are the words and the
// text between them the delimiters). Empty pieces are dropped; `begins`, if given, gets where
// each piece begins in `text`.
Status split_text(const TextPattern& pattern, SplitBehavior behavior, bool invert, std::string_view text,
                  std::vector<std::string>& out, std::vector<std::size_t>* begins = nullptr);

// GPT-2's byte-level alphabet: each byte as a printable character (the printable bytes stand for
// themselves, the others for U+0100 onwards), and back (-1: not a character of the alphabet).
const std::array<std::string, 256>& byte_level_alphabet();
int byte_level_byte(std::string_view character);

class PreTokenizer {
 public:
  // `config` is the "pre_tokenizer" value (null: the text is one word).
  static Result<PreTokenizer> parse(const nlohmann::json& config, const std::string& name);

  // Appends the words of `text`, a piece of the sentence between added tokens; `at_start`: the
  // piece begins the sentence (Metaspace's prepend_scheme "first" prepends only to a piece that
  // begins where the sentence does — not to the first piece left after a split removed a space).
  Status apply(std::string_view text, bool at_start, std::vector<std::string>& words) const;
  bool byte_level() const;
  // Metaspace's replacement character ("" without a Metaspace step).
  std::string metaspace() const;

 private:
  enum class Kind { Split, ByteLevel, Metaspace };
  enum class Prepend { Always, First, Never };
  struct Step {
    Kind kind = Kind::Split;
    TextPattern pattern = TextPattern::literal("");
    SplitBehavior behavior = SplitBehavior::Isolated;
    bool invert = false;
    bool add_prefix_space = false, use_regex = true;  // ByteLevel
    std::string replacement;                           // Metaspace
    Prepend prepend = Prepend::Always;
    bool split = true;
  };
  struct Piece {
    std::string text;
    bool at_start = false;
  };
  Status add(const nlohmann::json& config, int depth);
  Status add_split(const nlohmann::json& config, const std::string& what);
  Status add_byte_level(const nlohmann::json& config, const std::string& what);
  Status add_metaspace(const nlohmann::json& config);
  Status add_pattern(const std::string& regex, SplitBehavior behavior, bool invert, const std::string& what);
  Status run(const Step& step, Piece piece, std::vector<Piece>& out) const;

  std::vector<Step> steps_;
  std::string name_;
};

}  // namespace poslab

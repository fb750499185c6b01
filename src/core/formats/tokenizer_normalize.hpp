#pragma once
// tokenizer.json's "normalizer": what the text becomes before it is split into words — Unicode
// normal forms (through ICU's Normalizer2), Lowercase, Strip, StripAccents, Prepend, Replace (a
// literal string or a regex) and Sequence of them. Llama 2 prepends "▁" and turns spaces into
// "▁"; Gemma replaces spaces; Qwen applies NFC.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/formats/tokenizer_text.hpp"
#include "core/result.hpp"

namespace poslab {

class Normalizer {
 public:
  // `config` is the "normalizer" value (null: none). `name` prefixes messages; an unsupported
  // type is refused by name.
  static Result<Normalizer> parse(const nlohmann::json& config, const std::string& name);

  // `text` must be valid UTF-8 (the result is too).
  Result<std::string> apply(std::string_view text) const;
  bool empty() const { return steps_.empty(); }
  // The steps' types in order ("Prepend, Replace"), "" for none.
  std::string describe() const;

 private:
  enum class Kind { Prepend, Replace, Nfc, Nfd, Nfkc, Nfkd, Lowercase, Strip, StripAccents };
  struct Step {
    Kind kind = Kind::Nfc;
    std::string text;             // Prepend's prefix, Replace's content
    TextPattern pattern = TextPattern::literal("");  // Replace's and Strip's and StripAccents' pattern
    bool left = true, right = true;  // Strip's sides
    std::string type;                // as tokenizer.json names it
  };
  Status add(const nlohmann::json& config, int depth);

  std::vector<Step> steps_;
  std::string name_;
};

// Unicode normal forms and lowercasing of valid UTF-8, through ICU.
enum class NormalForm { Nfc, Nfd, Nfkc, Nfkd };
Result<std::string> normalize_unicode(std::string_view text, NormalForm form);
std::string lowercase(std::string_view text);

}  // namespace poslab

#pragma once
// tokenizer.json's "normalizer": what the text becomes before it is split into words — Unicode
// normal forms (through ICU's Normalizer2), Lowercase, Strip, StripAccents, Prepend, Replace (a
// literal string or a regex), BertNormalizer, Precompiled (SentencePiece's charsmap,
// tokenizer_precompiled.hpp) and Sequence of them. Llama 2 prepends "▁" and turns spaces into
// "▁"; Gemma replaces spaces; Qwen applies NFC; BERT cleans, spaces out Chinese characters,
// strips accents and lowercases; T5 applies its charsmap.
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer_precompiled.hpp"
#include "tokenizer/tokenizer_text.hpp"
#include "base/result.hpp"

namespace poslab {

// BertNormalizer's switches; strip_accents null in the file means "as lowercase".
struct BertNormalizerOptions {
  bool clean_text = true, handle_chinese_chars = true, strip_accents = true, lowercase = true;
};
// BertNormalizer as Hugging Face's tokenizers applies it, in its order: clean_text drops NUL,
// U+FFFD and the "other" characters (Cc, Cf, Cn, Co, Cs — but tab, newline and carriage return
// are white space) and turns white space into a plain space; handle_chinese_chars puts a space
// on each side of a CJK ideograph; strip_accents decomposes (NFD) and drops the nonspacing marks
// (Mn); lowercase lowercases character by character. `text` must be valid UTF-8.
Result<std::string> bert_normalize(std::string_view text, const BertNormalizerOptions& options);
// BERT's "Chinese character": the CJK Unified Ideographs blocks and their extensions and
// compatibility ideographs, as tokenizers lists them.
bool is_cjk_ideograph(char32_t cp);

class Normalizer {
 public:
  // `config` is the "normalizer" value (null: none). `name` prefixes messages; an unsupported
  // type is refused by name.
  static Result<Normalizer> parse(const nlohmann::json& config, const std::string& name);

  // `text` must be valid UTF-8 (the result is too). A result longer than output_limit(text) is
  // refused before it is built, naming the step that would make it.
  Result<std::string> apply(std::string_view text) const;
  // The most bytes normalizing `input` bytes may give: kGrowthLimit times them, and some room.
  static std::size_t output_limit(std::size_t input);
  static constexpr std::size_t kGrowthLimit = 32, kGrowthSlack = 4096;
  bool empty() const { return steps_.empty(); }
  // The steps' types in order ("Prepend, Replace"), "" for none.
  std::string describe() const;

 private:
  enum class Kind { Prepend, Replace, Nfc, Nfd, Nfkc, Nfkd, Lowercase, Strip, StripAccents, Bert, Precompiled };
  struct Step {
    Kind kind = Kind::Nfc;
    std::string text;             // Prepend's prefix, Replace's content
    TextPattern pattern = TextPattern::literal("");  // Replace's and Strip's and StripAccents' pattern
    bool left = true, right = true;  // Strip's sides
    BertNormalizerOptions bert;
    std::shared_ptr<const PrecompiledCharsmap> charsmap;  // shared: a tokenizer is copied whole
    std::string type;                // as tokenizer.json names it
  };
  Status add(const nlohmann::json& config, int depth);
  // Ok when a step's result of `size` bytes (from `input` bytes of text) fits `limit`.
  Status check_size(const Step& step, double size, std::size_t input, std::size_t limit) const;
  Status add_bert(const nlohmann::json& config);
  Status add_precompiled(const nlohmann::json& config, const std::string& what);

  std::vector<Step> steps_;
  std::string name_;
};

// Unicode normal forms and lowercasing of valid UTF-8, through ICU.
enum class NormalForm { Nfc, Nfd, Nfkc, Nfkd };
Result<std::string> normalize_unicode(std::string_view text, NormalForm form);
std::string lowercase(std::string_view text);

}  // namespace poslab

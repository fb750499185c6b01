#pragma once
// tokenizer.json's "added_tokens": tokens found in the text before anything else and never split
// or merged, special (<s>, <|begin_of_text|>) or not (Gemma's runs of newlines, Qwen's <think>).
// As in Hugging Face's tokenizers, those with normalized false are matched in the raw text and
// those with normalized true in the normalized text; at each place the longest match wins;
// lstrip and rstrip take the white space beside the token into it; single_word matches only a
// token that stands alone between non-word characters.
#include <array>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace poslab {

struct AddedToken {
  std::string content;
  int id = -1;
  bool special = false, normalized = false, lstrip = false, rstrip = false, single_word = false;
};

class AddedTokens {
 public:
  static Result<AddedTokens> parse(const nlohmann::json& added_tokens, const std::string& name);

  // A piece of text: an added token (id ≥ 0) or the text between them, and where it begins.
  struct Segment {
    std::string text;
    int id = -1;
    std::size_t begin = 0;
  };
  // Splits `text` at the added tokens whose `normalized` flag is `normalized`.
  std::vector<Segment> split(std::string_view text, bool normalized) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  // Whether `token` matches at `at` of `text`, and the span it then takes: [begin, end).
  bool match(const AddedToken& token, std::string_view text, std::size_t at, std::size_t floor, std::size_t& begin,
             std::size_t& end) const;

  std::vector<AddedToken> tokens_;
  // By the first byte of their content, longest first: the candidates at a position.
  std::array<std::vector<int>, 256> by_first_byte_;
};

}  // namespace poslab

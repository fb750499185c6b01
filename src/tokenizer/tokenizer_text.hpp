#pragma once
// What every step of the tokenizer (bpe.hpp) needs of text: UTF-8 characters, and patterns to
// find in it — a tokenizer.json "pattern" is either a literal String or a Regex written for
// Oniguruma, which PCRE2 (UTF, Unicode properties) reads the same way for the patterns real
// tokenizers use: \p{L}, (?i:…), lookahead such as \s+(?!\S).
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "base/text.hpp"  // utf8_sequence_length, is_utf8_continuation: every step walks characters

namespace poslab {

std::string utf8_encode(char32_t cp);
// The characters of `s`, each as a string (a byte that starts no valid sequence stands alone).
std::vector<std::string> utf8_characters(std::string_view s);
bool valid_utf8(std::string_view s);
// The code point of one character (as utf8_characters gives them); a stray byte as itself.
char32_t utf8_code_point(std::string_view character);
// Unicode's White_Space property (Rust's char::is_whitespace).
bool is_white_space(char32_t cp);
// `bytes` as readable UTF-8: its valid characters as they are, every other byte as <0xNN>.
std::string printable_utf8(std::string_view bytes);
// A byte as byte_fallback's vocabularies (Llama 2, Gemma, a Unigram's) name it: "<0x0A>", two
// upper-case hex digits.
std::string byte_fallback_token(unsigned char byte);

// A message's text with every NUL and other C0 control byte but tab and newline written as \u00XX,
// so that a key or value from a file shows whole where a message is printed as a C string.
std::string escape_controls(std::string_view text);

// The bytes the tokenizer's steps have examined on this thread: text validated, searched for a
// pattern (with what PCRE2 itself validates), looked up in a vocabulary, copied into pieces and
// results. Tests compare it across text lengths to see that the work grows linearly in the text,
// whatever the machine's speed.
std::uint64_t tokenizer_work();
void add_tokenizer_work(std::size_t bytes);

// A PCRE2 class of the characters with Unicode's White_Space property (Rust's char::is_whitespace,
// which tokenizers' Strip and WhitespaceSplit use; PCRE2's own \s leaves out U+0085).
inline constexpr const char* kWhiteSpaceClass =
    R"([\t-\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}])";

// A token id in tokenizer.json: a JSON integer from 0 to 2^24 − 1 (a float or a huge number is
// an error, never converted; no real vocabulary comes near 16 million tokens).
Result<int> json_token_id(const nlohmann::json& v, const std::string& name, const std::string& what);

// A compiled PCRE2 pattern (opaque).
struct CompiledRegex;

// A pattern to find in text: a literal string or a regex.
class TextPattern {
 public:
  // From tokenizer.json's {"String": …} or {"Regex": …}; `what` names the component in messages.
  static Result<TextPattern> parse(const nlohmann::json& pattern, const std::string& what);
  static Result<TextPattern> regex(const std::string& pattern, const std::string& what);
  static TextPattern literal(std::string text);

  // The non-overlapping matches, left to right, as [begin, end) byte offsets. An empty match
  // moves the search on by one character, as Oniguruma's iteration does.
  Status find_all(std::string_view text, std::vector<std::pair<std::size_t, std::size_t>>& matches) const;

 private:
  std::string literal_;
  std::shared_ptr<CompiledRegex> regex_;
  std::string what_;
};

// Replaces every match of `pattern` in `text` by `content`.
Result<std::string> replace_all(const TextPattern& pattern, std::string_view text, const std::string& content);
// The same with the matches already found (as find_all gives them).
std::string replace_matches(std::string_view text, const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                            const std::string& content);

}  // namespace poslab

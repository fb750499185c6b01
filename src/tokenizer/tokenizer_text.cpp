#include "tokenizer/tokenizer_text.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace poslab {

struct CompiledRegex {
  pcre2_code* code = nullptr;
  ~CompiledRegex() { pcre2_code_free(code); }
};

std::string utf8_encode(char32_t cp) {
  std::string s;
  const auto byte = [&s](char32_t b) { s += static_cast<char>(static_cast<unsigned char>(b)); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | (cp >> 6)), byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    byte(0xE0 | (cp >> 12)), byte(0x80 | ((cp >> 6) & 0x3F)), byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xF0 | (cp >> 18)), byte(0x80 | ((cp >> 12) & 0x3F)), byte(0x80 | ((cp >> 6) & 0x3F)), byte(0x80 | (cp & 0x3F));
  }
  return s;
}

namespace {

// The length of the valid UTF-8 character at `i`, or 0 when the bytes there are not one
// (overlong forms, surrogates and code points past U+10FFFF included, as Rust's strings refuse them).
std::size_t valid_character_at(std::string_view s, std::size_t i) {
  const auto at = [&s](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = at(i);
  const std::size_t n = utf8_sequence_length(lead);
  if (n == 1) return lead < 0x80 ? 1 : 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if (!is_utf8_continuation(at(i + k))) return 0;
  char32_t cp = lead & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (at(i + k) & 0x3F);
  const char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::vector<std::string> utf8_characters(std::string_view s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = std::max<std::size_t>(1, valid_character_at(s, i));
    out.emplace_back(s.substr(i, n));
    i += n;
  }
  return out;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = valid_character_at(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

char32_t utf8_code_point(std::string_view character) {
  if (character.empty()) return 0;
  const auto lead = static_cast<unsigned char>(character[0]);
  const std::size_t n = valid_character_at(character, 0);
  if (n <= 1) return lead;
  char32_t cp = lead & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(character[k]) & 0x3F);
  return cp;
}

std::string byte_fallback_token(unsigned char byte) {
  char token[8];
  std::snprintf(token, sizeof token, "<0x%02X>", static_cast<unsigned>(byte));
  return token;
}

bool is_white_space(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

std::string printable_utf8(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    if (const std::size_t n = valid_character_at(bytes, i); n > 0) {
      out.append(bytes.substr(i, n));
      i += n;
      continue;
    }
    out += byte_fallback_token(static_cast<unsigned char>(bytes[i]));
    ++i;
  }
  return out;
}

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 || c == '\n' || c == '\t') {
      out += c;
      continue;
    }
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\u%04X", static_cast<unsigned>(u));
    out += escaped;
  }
  return out;
}

namespace {
thread_local std::uint64_t t_work = 0;
}  // namespace

std::uint64_t tokenizer_work() { return t_work; }
void add_tokenizer_work(std::size_t bytes) { t_work += bytes; }

Result<int> json_token_id(const nlohmann::json& v, const std::string& name, const std::string& what) {
  constexpr long long kLimit = (1 << 24) - 1;
  if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > kLimit)
    return Error{name + ": " + what + " must be a whole number from 0 to " + std::to_string(kLimit) + ", found " + v.dump()};
  return static_cast<int>(v.get<long long>());
}

Result<TextPattern> TextPattern::regex(const std::string& pattern, const std::string& what) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                                   &error, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    return Error{what + ": the regex does not compile at offset " + std::to_string(offset) + ": " +
                 reinterpret_cast<const char*>(message)};
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // faster where available; plain matching otherwise
  TextPattern p;
  p.regex_ = std::make_shared<CompiledRegex>();
  p.regex_->code = code;
  p.what_ = what;
  return p;
}

TextPattern TextPattern::literal(std::string text) {
  TextPattern p;
  p.literal_ = std::move(text);
  return p;
}

Result<TextPattern> TextPattern::parse(const nlohmann::json& pattern, const std::string& what) {
  if (pattern.is_object() && pattern.contains("Regex")) return regex(pattern["Regex"].get<std::string>(), what);
  if (pattern.is_object() && pattern.contains("String")) return literal(pattern["String"].get<std::string>());
  return Error{what + ": a pattern must be {\"String\": …} or {\"Regex\": …}, found " + pattern.dump()};
}

Status TextPattern::find_all(std::string_view text, std::vector<std::pair<std::size_t, std::size_t>>& matches) const {
  if (!regex_) {
    if (literal_.empty()) return Ok{};  // an empty string matches nowhere
    add_tokenizer_work(text.size());
    for (std::size_t at = text.find(literal_); at != std::string_view::npos; at = text.find(literal_, at + literal_.size()))
      matches.emplace_back(at, at + literal_.size());
    return Ok{};
  }
  // Validated once here: without PCRE2_NO_UTF_CHECK every pcre2_match call validates the whole
  // rest of the text again, which made matching quadratic in the text's length.
  if (!valid_utf8(text)) return Error{what_ + ": the text is not valid UTF-8"};
  add_tokenizer_work(text.size());
  constexpr std::uint32_t options = PCRE2_NO_UTF_CHECK;
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(regex_->code, nullptr);
  Status status = Ok{};
  PCRE2_SIZE start = 0;
  while (start <= text.size()) {
    if ((options & PCRE2_NO_UTF_CHECK) == 0) add_tokenizer_work(text.size() - start);  // what PCRE2 would validate
    const int rc =
        pcre2_match(regex_->code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), start, options, match, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof message);
      status = Error{what_ + ": cannot match the regex: " + reinterpret_cast<const char*>(message)};
      break;
    }
    const PCRE2_SIZE* v = pcre2_get_ovector_pointer(match);
    if (v[1] < v[0]) break;  // \K in a lookahead can report such a match; nothing sensible follows
    matches.emplace_back(v[0], v[1]);
    add_tokenizer_work(v[1] > start ? v[1] - start : 0);  // the bytes this match stepped over
    if (v[1] > v[0]) {
      start = v[1];
      continue;
    }
    if (v[1] >= text.size()) break;  // an empty match: step over one character
    start = v[1] + utf8_sequence_length(static_cast<unsigned char>(text[v[1]]));
  }
  pcre2_match_data_free(match);
  return status;
}

Result<std::string> replace_all(const TextPattern& pattern, std::string_view text, const std::string& content) {
  std::vector<std::pair<std::size_t, std::size_t>> matches;
  if (auto s = pattern.find_all(text, matches); !s) return Error{s.error()};
  return replace_matches(text, matches, content);
}

std::string replace_matches(std::string_view text, const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                            const std::string& content) {
  std::string out;
  std::size_t from = 0;
  for (const auto& [begin, end] : matches) {
    if (begin < from) continue;
    out.append(text.substr(from, begin - from));
    out += content;
    from = end;
  }
  out.append(text.substr(from));
  return out;
}

}  // namespace poslab

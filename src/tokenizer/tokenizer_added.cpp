#include "tokenizer/tokenizer_added.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer_text.hpp"

namespace poslab {

using json = nlohmann::json;

namespace {

// The start of the character before `at`.
std::size_t previous_character(std::string_view text, std::size_t at) {
  std::size_t i = at - 1;
  while (i > 0 && is_utf8_continuation(static_cast<unsigned char>(text[i]))) --i;
  return i;
}

std::string_view character_at(std::string_view text, std::size_t at) {
  return text.substr(at, std::min(utf8_sequence_length(static_cast<unsigned char>(text[at])), text.size() - at));
}

// A word character for single_word: letters and digits (any non-ASCII character counts as one).
bool word_character(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

}  // namespace

Result<AddedTokens> AddedTokens::parse(const json& added_tokens, const std::string& name) {
  AddedTokens a;
  if (added_tokens.is_null()) return a;
  if (!added_tokens.is_array()) return Error{name + ": added_tokens must be an array"};
  for (const json& added : added_tokens) {
    AddedToken t;
    t.content = added.at("content").get<std::string>();
    auto id = json_token_id(added.at("id"), name, "an added token's id");
    if (!id) return Error{id.error()};
    t.id = *id;
    t.special = added.value("special", false);
    t.normalized = added.value("normalized", !t.special);  // tokenizers' default
    t.lstrip = added.value("lstrip", false);
    t.rstrip = added.value("rstrip", false);
    t.single_word = added.value("single_word", false);
    a.tokens_.push_back(std::move(t));
  }
  for (std::size_t k = 0; k < a.tokens_.size(); ++k)
    if (!a.tokens_[k].content.empty())
      a.by_first_byte_[static_cast<unsigned char>(a.tokens_[k].content[0])].push_back(static_cast<int>(k));
  for (auto& candidates : a.by_first_byte_)
    std::stable_sort(candidates.begin(), candidates.end(), [&a](int x, int y) {
      return a.tokens_[static_cast<std::size_t>(x)].content.size() > a.tokens_[static_cast<std::size_t>(y)].content.size();
    });
  return a;
}

bool AddedTokens::match(const AddedToken& token, std::string_view text, std::size_t at, std::size_t floor, std::size_t& begin,
                        std::size_t& end) const {
  if (text.compare(at, token.content.size(), token.content) != 0) return false;
  begin = at;
  end = at + token.content.size();
  if (token.single_word) {
    const bool before = at > 0 && word_character(static_cast<unsigned char>(text[at - 1]));
    const bool after = end < text.size() && word_character(static_cast<unsigned char>(text[end]));
    if (before || after) return false;
  }
  if (token.lstrip)
    while (begin > floor) {
      const std::size_t p = previous_character(text, begin);
      if (!is_white_space(utf8_code_point(character_at(text, p)))) break;
      begin = p;
    }
  if (token.rstrip)
    while (end < text.size() && is_white_space(utf8_code_point(character_at(text, end))))
      end += character_at(text, end).size();
  return true;
}

std::vector<AddedTokens::Segment> AddedTokens::split(std::string_view text, bool normalized) const {
  std::vector<Segment> out;
  std::size_t from = 0;  // the end of the last match: lstrip takes no white space before it
  for (std::size_t at = 0; at < text.size();) {
    bool found = false;
    std::size_t begin = 0, end = 0;
    const AddedToken* which = nullptr;
    for (int k : by_first_byte_[static_cast<unsigned char>(text[at])]) {  // longest first
      const AddedToken& t = tokens_[static_cast<std::size_t>(k)];
      if (t.normalized == normalized && match(t, text, at, from, begin, end)) {
        found = true;
        which = &t;
        break;
      }
    }
    if (!found) {
      ++at;
      continue;
    }
    if (begin > from) out.push_back({std::string(text.substr(from, begin - from)), -1, from});
    out.push_back({which->content, which->id, begin});
    from = at = end;
  }
  if (from < text.size()) out.push_back({std::string(text.substr(from)), -1, from});
  return out;
}

}  // namespace poslab

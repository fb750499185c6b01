#include "core/formats/tokenizer.hpp"

#include "tokenizer/tokenizer.hpp"

#include <cctype>

#include "base/random.hpp"
#include "tokenizer/tokenizer.hpp"

namespace poslab {

namespace {
bool is_word_char(unsigned char c) {
  return std::isalnum(c) || c == '\'' || c == '-' || c >= 0x80;
}
}  // namespace

std::vector<std::string> split_words(std::string_view sentence) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < sentence.size()) {
    const auto c = static_cast<unsigned char>(sentence[i]);
    if (std::isspace(c) || std::iscntrl(c)) {
      ++i;
    } else if (is_word_char(c)) {
      const std::size_t start = i;
      while (i < sentence.size() && is_word_char(static_cast<unsigned char>(sentence[i]))) ++i;
      words.emplace_back(sentence.substr(start, i - start));
    } else {
      words.emplace_back(1, sentence[i]);
      ++i;
    }
  }
  return words;
}

std::string no_tokens_message(const std::string& what, const std::vector<std::string>& unknown, const std::string& advice) {
  const std::string none = "the " + what + " has no tokens";
  if (unknown.empty()) return none + (advice.empty() ? std::string() : ": " + advice);
  std::string listed;
  for (std::size_t k = 0; k < unknown.size() && k < 20; ++k)
    listed += (k ? ", \"" : "\"") + escape_controls(printable_utf8(unknown[k])) + "\"";
  if (unknown.size() > 20) listed += " and " + std::to_string(unknown.size() - 20) + " more";
  return none + ": the vocabulary has no token for " + listed;
}

std::vector<Token> tokenize(std::string_view sentence, const EmbeddingTable& table, std::vector<std::string>* unknown) {
  std::vector<Token> tokens;
  // A real model's table: its own tokenizer, rows by token id (text that cannot be encoded,
  // such as invalid UTF-8, falls back to words and derived vectors).
  if (const BpeTokenizer* bpe = table.tokenizer())
    if (auto ids = bpe->encode(sentence, unknown)) {
      const std::vector<std::string> texts = bpe->token_texts(*ids);
      for (std::size_t k = 0; k < ids->size(); ++k) {
        const int id = (*ids)[k];
        tokens.push_back(Token{texts[k], id < table.size() ? id : -1, id >= table.size(), false});
      }
      return tokens;
    }
  for (auto& word : split_words(sentence)) {
    Token t;
    t.row = table.find(word);
    if (t.row < 0) {
      std::string lower = word;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      t.row = table.find(lower);
    }
    t.unknown = t.row < 0;
    t.text = std::move(word);
    tokens.push_back(std::move(t));
  }
  return tokens;
}

Vector unknown_token_vector(const std::string& text, int dim, float scale) {
  Rng rng(hash_text(text));
  Vector v(dim);
  for (int j = 0; j < dim; ++j) v(j) = static_cast<float>(scale * rng.normal());
  return v;
}

}  // namespace poslab

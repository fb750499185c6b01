#pragma once
// Word-level tokens: exactly the words and punctuation marks of the sentence, nothing added.
#include <string>
#include <string_view>
#include <vector>

#include "core/formats/embeddings.hpp"

namespace poslab {

struct Token {
  std::string text;     // as written in the sentence
  int row = -1;         // row in the embedding table, -1 when unknown
  bool unknown = false; // true: the vector is derived from the text, not from the table
  bool padding = false; // true: an appended padding token (its key is masked)
};

// Words are runs of letters, digits, apostrophes, hyphens and non-ASCII characters; every other
// visible ASCII character is a token of its own.
std::vector<std::string> split_words(std::string_view sentence);

// Looks each word up exactly, then lower-cased. With the table's tokenizer, the characters it has
// no token for go to `unknown` (each once), when given.
std::vector<Token> tokenize(std::string_view sentence, const EmbeddingTable& table, std::vector<std::string>* unknown = nullptr);

// "the sentence has no tokens: the vocabulary has no token for "☃", "ǂ"" — or, with nothing
// unknown, "the sentence has no tokens" and `advice`. `what`: "sentence" (or which one).
std::string no_tokens_message(const std::string& what, const std::vector<std::string>& unknown, const std::string& advice);

// The vector of an unknown token: Gaussian with the table's component scale, seeded by the text,
// so the same word always gets the same vector.
Vector unknown_token_vector(const std::string& text, int dim, float scale);

}  // namespace poslab

#include "tokenizer/tokenizer_wordpiece.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer_text.hpp"

namespace poslab {

using json = nlohmann::json;

Result<WordPieceModel> WordPieceModel::parse(const json& model, const std::string& name) {
  WordPieceModel m;
  m.unk_ = model.value("unk_token", std::string("[UNK]"));
  m.prefix_ = model.value("continuing_subword_prefix", std::string("##"));
  const json max = model.value("max_input_chars_per_word", json(100));
  if (!max.is_number_integer() || max.get<long long>() < 0)
    return Error{name + ": WordPiece's max_input_chars_per_word must be a whole number ≥ 0, found " + max.dump()};
  m.max_chars_ = max.get<std::size_t>();
  const json& vocab = model.at("vocab");
  if (!vocab.is_object()) return Error{name + ": the WordPiece vocabulary must be an object of token → id"};
  m.pieces_.reserve(vocab.size());
  m.all_.reserve(vocab.size());
  // tokenizers reads an empty vocabulary and then refuses every text it is given.
  if (vocab.empty()) return Error{name + ": the WordPiece vocabulary is empty"};
  for (const auto& [token, id] : vocab.items()) {
    auto parsed = json_token_id(id, name, "the id of \"" + token + "\"");
    if (!parsed) return Error{parsed.error()};
    m.pieces_.emplace(token, *parsed);
    m.all_.set(token, *parsed);
    m.longest_ = std::max(m.longest_, token.size());
  }
  return m;
}

int WordPieceModel::piece_id(std::string_view piece) const {
  const auto it = pieces_.find(piece);
  return it == pieces_.end() ? -1 : it->second;
}

Status WordPieceModel::tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const {
  if (word.empty()) return Ok{};
  const auto unknown = [&]() -> Status {
    if (const int unk = piece_id(unk_); unk >= 0) {
      out.push_back(unk);
      return Ok{};
    }
    if (missing) *missing += word;
    const std::string shown = word.size() > 40 ? std::string(word.substr(0, 40)) + "…" : std::string(word);
    return Error{"WordPiece's unk_token " + printable_utf8(unk_) + " is not in the vocabulary, and the word \"" +
                 printable_utf8(shown) + "\" has no pieces (tokenizers refuses such text too)"};
  };
  const auto continuation = [&](std::size_t at) { return at < word.size() && is_utf8_continuation(static_cast<unsigned char>(word[at])); };
  std::size_t characters = 0;
  for (std::size_t i = 0; i < word.size(); ++i) characters += continuation(i) ? 0 : 1;
  if (characters > max_chars_) return unknown();
  // Greedy longest match: from each start, the longest run of characters with a piece. No piece
  // is longer than longest_ bytes, so none is looked for past that: a long word costs its length
  // times the longest piece, not its square.
  std::vector<int> ids;
  std::string candidate;
  for (std::size_t start = 0; start < word.size();) {
    std::size_t end = std::min(word.size(), start + longest_);
    while (end > start && continuation(end)) --end;  // back to a whole character
    int found = -1;
    while (end > start) {
      candidate.assign(start > 0 ? prefix_ : std::string());
      candidate.append(word.substr(start, end - start));
      add_tokenizer_work(candidate.size());
      found = piece_id(candidate);
      if (found >= 0) break;
      do --end;
      while (end > start && continuation(end));
    }
    if (found < 0) return unknown();
    ids.push_back(found);
    start = end;
  }
  out.insert(out.end(), ids.begin(), ids.end());
  return Ok{};
}

}  // namespace poslab

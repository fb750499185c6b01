#include "tokenizer/tokenizer_wordpiece.hpp"

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
  for (const auto& [token, id] : vocab.items()) {
    auto parsed = json_token_id(id, name, "the id of \"" + token + "\"");
    if (!parsed) return Error{parsed.error()};
    m.pieces_.emplace(token, *parsed);
    m.all_.set(token, *parsed);
  }
  return m;
}

int WordPieceModel::piece_id(const std::string& piece) const {
  const auto it = pieces_.find(piece);
  return it == pieces_.end() ? -1 : it->second;
}

void WordPieceModel::tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const {
  if (word.empty()) return;
  const auto unknown = [&] {
    if (const int unk = piece_id(unk_); unk >= 0)
      out.push_back(unk);
    else if (missing)
      *missing += word;
  };
  const std::vector<std::string> characters = utf8_characters(word);
  if (characters.size() > max_chars_) return unknown();
  // Greedy longest match: from each start, the longest run of characters with a piece.
  std::vector<int> ids;
  for (std::size_t start = 0; start < characters.size();) {
    std::string run;
    for (std::size_t k = start; k < characters.size(); ++k) run += characters[k];
    std::size_t end = characters.size();
    int found = -1;
    while (end > start) {
      found = piece_id(start > 0 ? prefix_ + run : run);
      if (found >= 0) break;
      --end;
      run.resize(run.size() - characters[end].size());
    }
    if (found < 0) return unknown();
    ids.push_back(found);
    start = end;
  }
  out.insert(out.end(), ids.begin(), ids.end());
}

}  // namespace poslab

#include "tokenizer/tokenizer_model.hpp"

#include <nlohmann/json.hpp>
#include <type_traits>

namespace poslab {

using json = nlohmann::json;

Result<TokenModel> TokenModel::parse(const json& model, const std::string& name) {
  if (!model.is_object()) return Error{name + ": the model must be an object"};
  std::string type;
  if (model.contains("type"))
    type = model["type"].get<std::string>();
  else if (model.contains("merges"))
    type = "BPE";
  else
    type = model.contains("vocab") && model["vocab"].is_array() ? "Unigram" : "WordPiece";
  if (type == "BPE") {
    auto m = BpeModel::parse(model, name);
    if (!m) return Error{m.error()};
    return TokenModel(std::move(*m));
  }
  if (type == "WordPiece") {
    auto m = WordPieceModel::parse(model, name);
    if (!m) return Error{m.error()};
    return TokenModel(std::move(*m));
  }
  if (type == "Unigram") {
    auto m = UnigramModel::parse(model, name);
    if (!m) return Error{m.error()};
    return TokenModel(std::move(*m));
  }
  return Error{name + ": model type " + type + " is not supported (BPE, WordPiece, Unigram)"};
}

Status TokenModel::tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const {
  return std::visit(
      [&](const auto& m) -> Status {
        if constexpr (std::is_void_v<decltype(m.tokenize(word, out, missing))>) {
          m.tokenize(word, out, missing);  // BPE: text without a token is left out, as tokenizers leaves it
          return Ok{};
        } else {
          return m.tokenize(word, out, missing);
        }
      },
      model_);
}

int TokenModel::id_of(const std::string& token) const {
  return std::visit([&](const auto& m) { return m.id_of(token); }, model_);
}

void TokenModel::add_token(const std::string& text, int id) {
  std::visit([&](auto& m) { m.add_token(text, id); }, model_);
}

const std::vector<std::string>& TokenModel::tokens() const {
  return std::visit([](const auto& m) -> const std::vector<std::string>& { return m.tokens(); }, model_);
}

bool TokenModel::byte_fallback() const {
  if (const auto* bpe = std::get_if<BpeModel>(&model_)) return bpe->byte_fallback();
  if (const auto* unigram = std::get_if<UnigramModel>(&model_)) return unigram->byte_fallback();
  return false;
}

std::string TokenModel::continuing_subword_prefix() const {
  const auto* wordpiece = std::get_if<WordPieceModel>(&model_);
  return wordpiece ? wordpiece->continuing_subword_prefix() : std::string();
}

}  // namespace poslab

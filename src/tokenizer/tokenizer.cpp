#include "tokenizer/tokenizer.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/files.hpp"
#include "base/json.hpp"
#include "tokenizer/tokenizer_added.hpp"
#include "tokenizer/tokenizer_display.hpp"
#include "tokenizer/tokenizer_model.hpp"
#include "tokenizer/tokenizer_normalize.hpp"
#include "tokenizer/tokenizer_post.hpp"
#include "tokenizer/tokenizer_pretokenize.hpp"
#include "tokenizer/tokenizer_text.hpp"

namespace poslab {

using json = nlohmann::json;

namespace {

// A member that may be absent: null then.
const json& member(const json& root, const char* key) {
  static const json null_value;
  return root.contains(key) ? root[key] : null_value;
}

}  // namespace

struct BpeTokenizer::Parts {
  Status read(const nlohmann::json& root, std::string_view config_json);
  // The steps from tokenizer.json's text, before parse makes its messages printable.
  static Result<std::shared_ptr<const Parts>> parse_json(std::string_view tokenizer_json, std::string_view config_json,
                                                         const std::string& name);
  // Steps 2–4 for a piece of text between raw added tokens; `room`: the bytes of normalized text
  // the sentence may still make.
  Status encode_piece(const std::string& piece, bool at_start, std::vector<int>& ids, std::string* missing, std::size_t& room) const;
  // The mask token's id, from tokenizer_config.json (may be empty) or the added tokens.
  void find_mask_token(std::string_view config_json);
  Result<std::vector<int>> encode(std::string_view text, std::vector<std::string>* unknown) const;
  std::vector<std::string> token_texts(const std::vector<int>& ids) const;
  int vocab_size() const { return static_cast<int>(model_.tokens().size()); }

  TokenModel model_;
  AddedTokens added_;
  Normalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  SpecialTokenIds specials_;
  TokenDisplay display_;
  std::vector<bool> added_ids_, special_ids_;  // by id
  int mask_id_ = -1;
  std::string name_, description_;
};

Result<BpeTokenizer> BpeTokenizer::load(const std::filesystem::path& path) {
  auto text = read_whole_file(path, kTokenizerFile);
  if (!text) return Error{text.error()};
  std::string config;
  const auto config_path = path.parent_path() / "tokenizer_config.json";
  std::error_code ec;
  if (std::filesystem::exists(config_path, ec))
    if (auto c = read_whole_file(config_path, kJsonConfigFile)) config = std::move(*c);
  return parse(*text, config, path.string());
}

Result<BpeTokenizer> BpeTokenizer::parse(std::string_view tokenizer_json, std::string_view config_json, const std::string& name) {
  auto parsed = Parts::parse_json(tokenizer_json, config_json, name);
  // A key or value from the file may hold a NUL byte: escaped, so that no message stops at it.
  if (!parsed) return Error{escape_controls(parsed.error())};
  return BpeTokenizer(std::move(*parsed));
}

Result<std::shared_ptr<const BpeTokenizer::Parts>> BpeTokenizer::Parts::parse_json(std::string_view tokenizer_json,
                                                                                    std::string_view config_json,
                                                                                    const std::string& name) {
  // nlohmann's parser takes a NUL byte for the end of the text: a file padded with zeros would pass.
  if (const auto nul = tokenizer_json.find('\0'); nul != std::string_view::npos)
    return Error{name + ": not valid JSON: a NUL byte at byte " + std::to_string(nul)};
  const auto root = parse_json_object(tokenizer_json, name, "not a tokenizer.json (the top level is not an object)");
  if (!root) return Error{root.error()};
  try {
    auto t = std::make_shared<Parts>();
    t->name_ = name;
    if (auto s = t->read(*root, config_json); !s) return Error{s.error()};
    return std::shared_ptr<const Parts>(std::move(t));
  } catch (const json::exception& e) {
    return Error{name + ": unexpected structure: " + json_error_text(e.what())};
  }
}

// Every component in the order the encoding uses them; the first that cannot be read ends it.
Status BpeTokenizer::Parts::read(const json& root, std::string_view config_json) {
  auto model = TokenModel::parse(root.at("model"), name_);
  if (!model) return Error{model.error()};
  model_ = std::move(*model);
  auto added = AddedTokens::parse(member(root, "added_tokens"), name_);
  if (!added) return Error{added.error()};
  added_ = std::move(*added);
  for (const AddedToken& t : added_.tokens()) {
    model_.add_token(t.content, t.id);  // the id reads as the added token (post-processors name them)
    const auto id = static_cast<std::size_t>(t.id);
    if (id >= added_ids_.size()) added_ids_.resize(id + 1), special_ids_.resize(id + 1);
    added_ids_[id] = true;
    special_ids_[id] = special_ids_[id] || t.special;
  }
  auto normalizer = Normalizer::parse(member(root, "normalizer"), name_);
  if (!normalizer) return Error{normalizer.error()};
  normalizer_ = std::move(*normalizer);
  auto pre = PreTokenizer::parse(member(root, "pre_tokenizer"), name_);
  if (!pre) return Error{pre.error()};
  pre_tokenizer_ = std::move(*pre);
  const auto id_of = [this](const std::string& token) { return model_.id_of(token); };
  auto specials = read_post_processor(member(root, "post_processor"), config_json, id_of, name_);
  if (!specials) return Error{specials.error()};
  specials_ = std::move(*specials);
  display_ = TokenDisplay(member(root, "decoder"), pre_tokenizer_.byte_level(), pre_tokenizer_.metaspace(), model_.byte_fallback(),
                          model_.continuing_subword_prefix());
  find_mask_token(config_json);
  const TokenModel::Kind kind = model_.kind();
  description_ = std::string(kind == TokenModel::Kind::WordPiece ? "WordPiece"
                             : kind == TokenModel::Kind::Unigram ? "Unigram"
                             : pre_tokenizer_.byte_level()       ? "byte-level BPE"
                                                                 : "BPE") +
                 (model_.byte_fallback() ? " with byte fallback" : "") +
                 (normalizer_.empty() ? "" : ", normalizer " + normalizer_.describe());
  return Ok{};
}

void BpeTokenizer::Parts::find_mask_token(std::string_view config_json) {
  const json config = json::parse(config_json, nullptr, false);
  if (config.is_object() && config.contains("mask_token")) {  // a string or an AddedToken object
    const json& v = config["mask_token"];
    const json content = v.is_object() ? v.value("content", json()) : v;
    if (content.is_string()) mask_id_ = model_.id_of(content.get<std::string>());
    if (mask_id_ >= 0) return;
  }
  for (const char* name : {"[MASK]", "<mask>"})
    for (const AddedToken& t : added_.tokens())
      if (t.special && t.content == name) {
        mask_id_ = t.id;
        return;
      }
}

Status BpeTokenizer::Parts::encode_piece(const std::string& piece, bool at_start, std::vector<int>& ids, std::string* missing,
                                         std::size_t& room) const {
  auto normalized = normalizer_.apply(piece);
  if (!normalized) return Error{normalized.error()};
  // Each piece between added tokens is normalized alone (a Prepend prepends to each): the bound on
  // the text the normalizers make holds for the whole sentence, not only piece by piece.
  if (normalized->size() > room)
    return Error{name_ + ": the normalizer " + normalizer_.describe() + " would make more than " +
                 std::to_string(Normalizer::kGrowthLimit) + " times the text (a normalizer that multiplies text?)"};
  room -= normalized->size();
  for (const AddedTokens::Segment& segment : added_.split(*normalized, true)) {
    if (segment.id >= 0) {
      ids.push_back(segment.id);
      continue;
    }
    std::vector<std::string> words;
    if (auto s = pre_tokenizer_.apply(segment.text, at_start && segment.begin == 0, words); !s) return s;
    for (const std::string& word : words)
      if (auto s = model_.tokenize(word, ids, missing); !s) return Error{name_ + ": " + s.error()};
  }
  return Ok{};
}

Result<std::vector<int>> BpeTokenizer::encode(std::string_view text, std::vector<std::string>* unknown) const {
  auto ids = parts_->encode(text, unknown);
  if (!ids) return Error{escape_controls(ids.error())};
  return ids;
}

Result<std::vector<int>> BpeTokenizer::Parts::encode(std::string_view text, std::vector<std::string>* unknown) const {
  if (!valid_utf8(text)) return Error{name_ + ": the text is not valid UTF-8"};
  std::vector<int> ids = specials_.prefix;
  std::string missing;
  std::size_t room = Normalizer::output_limit(text.size());
  for (const AddedTokens::Segment& segment : added_.split(text, false)) {
    if (segment.id >= 0) ids.push_back(segment.id);
    else if (auto s = encode_piece(segment.text, segment.begin == 0, ids, &missing, room); !s) return Error{s.error()};
  }
  ids.insert(ids.end(), specials_.suffix.begin(), specials_.suffix.end());
  if (unknown && !missing.empty())  // as the person wrote them (byte-level symbols back to text)
    for (const std::string& c : utf8_characters(display_.bytes(missing)))
      if (std::find(unknown->begin(), unknown->end(), c) == unknown->end()) unknown->push_back(c);
  return ids;
}

std::vector<std::string> BpeTokenizer::token_texts(const std::vector<int>& ids) const { return parts_->token_texts(ids); }

std::vector<std::string> BpeTokenizer::Parts::token_texts(const std::vector<int>& ids) const {
  std::vector<std::string> tokens;
  std::vector<bool> added;
  for (int id : ids) {
    const bool known = id >= 0 && id < vocab_size();
    tokens.push_back(known ? model_.tokens()[static_cast<std::size_t>(id)] : std::string());
    added.push_back(known && static_cast<std::size_t>(id) < added_ids_.size() && added_ids_[static_cast<std::size_t>(id)]);
  }
  return display_.show(tokens, added);
}

std::string BpeTokenizer::token_text(int id) const { return token_texts({id}).front(); }

bool BpeTokenizer::is_special(int id) const {
  const std::vector<bool>& special = parts_->special_ids_;
  return id >= 0 && static_cast<std::size_t>(id) < special.size() && special[static_cast<std::size_t>(id)];
}

int BpeTokenizer::vocab_size() const { return parts_->vocab_size(); }
int BpeTokenizer::mask_token_id() const { return parts_->mask_id_; }
std::string BpeTokenizer::describe() const { return parts_->description_; }

}  // namespace poslab

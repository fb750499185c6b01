#include "tokenizer/tokenizer_bpe_model.hpp"

#include <nlohmann/json.hpp>
#include <queue>

#include "tokenizer/tokenizer_text.hpp"

namespace poslab {

using json = nlohmann::json;

namespace {

// A string field that may be null (tokenizers writes null for "none").
std::string optional_string(const json& object, const char* key) {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : std::string();
}

}  // namespace

Result<BpeModel> BpeModel::parse(const json& model, const std::string& name) {
  BpeModel m;
  m.name_ = name;
  if (model.value("type", std::string("BPE")) != "BPE")
    return Error{name + ": model type " + model.value("type", std::string()) + " is not supported (BPE only)"};
  if (model.contains("dropout") && model["dropout"].is_number() && model["dropout"].get<double>() > 0)
    return Error{name + ": BPE dropout is not supported (it makes encoding random; set \"dropout\" to null)"};
  m.ignore_merges_ = model.value("ignore_merges", false);
  m.byte_fallback_ = model.value("byte_fallback", false);
  m.fuse_unk_ = model.value("fuse_unk", false);
  m.prefix_ = optional_string(model, "continuing_subword_prefix");
  m.suffix_ = optional_string(model, "end_of_word_suffix");
  const json& vocab = model.at("vocab");
  if (!vocab.is_object()) return Error{name + ": the BPE vocabulary must be an object of token → id"};
  for (const auto& [token, id] : vocab.items()) {
    auto parsed = json_token_id(id, name, "the id of \"" + token + "\"");
    if (!parsed) return Error{parsed.error()};
    m.add_token(token, *parsed);
  }
  if (const std::string unk = optional_string(model, "unk_token"); !unk.empty()) {
    m.unk_ = m.id_of(unk);
    if (m.unk_ < 0) return Error{name + ": the unk_token " + unk + " is not in the vocabulary"};
  }
  if (auto s = m.read_merges(model.at("merges")); !s) return Error{s.error()};
  return m;
}

// Merges as "left right" strings or [left, right] pairs, by rank; each part and the merged token
// must be in the vocabulary (the right part's continuing_subword_prefix dropped when merged).
Status BpeModel::read_merges(const json& merges) {
  int rank = 0;
  for (const json& merge : merges) {
    std::string left, right;
    if (merge.is_array() && merge.size() == 2) {
      left = merge[0].get<std::string>();
      right = merge[1].get<std::string>();
    } else {
      const std::string m = merge.get<std::string>();
      const auto space = m.find(' ', 1);
      if (space == std::string::npos) return Error{name_ + ": merge " + std::to_string(rank) + " \"" + m + "\" has no space"};
      left = m.substr(0, space);
      right = m.substr(space + 1);
    }
    const std::string merged = left + (right.starts_with(prefix_) ? right.substr(prefix_.size()) : right);
    const int a = id_of(left), b = id_of(right), ab = id_of(merged);
    if (a < 0 || b < 0 || ab < 0)
      return Error{name_ + ": merge " + std::to_string(rank) + " (\"" + left + "\" + \"" + right + "\") names a token that is not in the vocabulary"};
    merges_.emplace(pair_key(a, b), Merge{rank++, ab});
  }
  return Ok{};
}

int BpeModel::id_of(const std::string& token) const {
  const auto it = vocab_.find(token);
  return it == vocab_.end() ? -1 : it->second;
}

void BpeModel::add_token(const std::string& text, int id) {
  const auto i = static_cast<std::size_t>(id);
  if (i >= id_to_token_.size()) id_to_token_.resize(i + 1);
  id_to_token_[i] = text;
  vocab_.emplace(text, id);
}

void BpeModel::initial_symbols(std::string_view word, std::vector<int>& ids, std::string* missing) const {
  const std::vector<std::string> characters = utf8_characters(word);
  bool last_unk = false;
  for (std::size_t k = 0; k < characters.size(); ++k) {
    const std::string& c = characters[k];
    const std::string symbol = (k > 0 ? prefix_ : std::string()) + c + (k + 1 == characters.size() ? suffix_ : std::string());
    if (const int id = id_of(symbol); id >= 0) {
      ids.push_back(id);
      last_unk = false;
      continue;
    }
    if (byte_fallback_) {  // every byte as <0xNN>, or none of them
      std::vector<int> bytes;
      for (unsigned char b : c)
        if (const int id = id_of(byte_fallback_token(b)); id >= 0) bytes.push_back(id);
      if (bytes.size() == c.size()) {
        ids.insert(ids.end(), bytes.begin(), bytes.end());
        last_unk = false;
        continue;
      }
    }
    if (unk_ >= 0) {
      if (!(fuse_unk_ && last_unk)) ids.push_back(unk_);  // fuse_unk: a run of unknowns is one <unk>
      last_unk = true;
      continue;
    }
    if (missing) *missing += c;
  }
}

// Merges by a queue of candidate pairs, lowest rank first and leftmost among equal ranks; a
// candidate whose symbols changed since it was queued is skipped. Linear in the merges made
// times log n, so that a long word (Gemma's whole sentence is one) stays fast.
void BpeModel::merge(std::vector<int>& ids) const {
  const int n = static_cast<int>(ids.size());
  if (n < 2 || merges_.empty()) return;
  std::vector<int> prev(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  std::vector<char> alive(static_cast<std::size_t>(n), 1);
  for (int i = 0; i < n; ++i) prev[static_cast<std::size_t>(i)] = i - 1, next[static_cast<std::size_t>(i)] = i + 1 < n ? i + 1 : -1;
  struct Candidate {
    int rank, pos, id;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  const auto at = [](std::vector<int>& v, int i) -> int& { return v[static_cast<std::size_t>(i)]; };
  const auto consider = [&](int pos) {
    if (pos < 0 || at(next, pos) < 0) return;
    if (auto it = merges_.find(pair_key(at(ids, pos), at(ids, at(next, pos)))); it != merges_.end())
      queue.push({it->second.rank, pos, it->second.id});
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    if (!alive[static_cast<std::size_t>(c.pos)] || at(next, c.pos) < 0) continue;
    const int right = at(next, c.pos);
    const auto it = merges_.find(pair_key(at(ids, c.pos), at(ids, right)));
    if (it == merges_.end() || it->second.rank != c.rank) continue;  // stale
    at(ids, c.pos) = c.id;
    alive[static_cast<std::size_t>(right)] = 0;
    at(next, c.pos) = at(next, right);
    if (at(next, right) >= 0) at(prev, at(next, right)) = c.pos;
    consider(at(prev, c.pos));
    consider(c.pos);
  }
  std::vector<int> merged;
  for (int i = 0; i >= 0; i = at(next, i)) merged.push_back(at(ids, i));
  ids = std::move(merged);
}

void BpeModel::tokenize(std::string_view word, std::vector<int>& out, std::string* missing) const {
  if (word.empty()) return;
  if (ignore_merges_)
    if (const int id = id_of(std::string(word)); id >= 0) {
      out.push_back(id);
      return;
    }
  std::vector<int> ids;
  initial_symbols(word, ids, missing);
  merge(ids);
  out.insert(out.end(), ids.begin(), ids.end());
}

}  // namespace poslab

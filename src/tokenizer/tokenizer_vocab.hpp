#pragma once
// A model's vocabulary both ways: token → id for lookups and id → token for reading ids back.
// Added tokens join it (so that post-processors and the display find them) without becoming
// pieces the model itself may produce.
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace poslab {

// A hash that looks a std::string key up by a std::string_view, without a copy of the text.
struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};

class Vocabulary {
 public:
  // -1: not in the vocabulary.
  int id_of(std::string_view token) const {
    const auto it = ids_.find(std::string(token));
    return it == ids_.end() ? -1 : it->second;
  }
  // Gives `id` the token `text`, growing the id table as needed; the first id of a text is kept
  // for lookups, as a map read in order keeps it. `id` must be ≥ 0 (json_token_id bounds it).
  void set(const std::string& text, int id) {
    const auto i = static_cast<std::size_t>(id);
    if (i >= tokens_.size()) tokens_.resize(i + 1);
    tokens_[i] = text;
    ids_.emplace(text, id);
  }
  const std::vector<std::string>& tokens() const { return tokens_; }
  void reserve(std::size_t n) { ids_.reserve(n), tokens_.reserve(n); }

 private:
  std::unordered_map<std::string, int> ids_;
  std::vector<std::string> tokens_;
};

}  // namespace poslab

#pragma once
// Byte-level BPE from a Hugging Face tokenizer.json (Llama 3, GPT-2 and their kin): added and
// special tokens split out first; the pre-tokenizer's Split regex (PCRE2, Unicode classes) and
// ByteLevel step; the byte-to-unicode map; merges applied by rank (with `ignore_merges`, a word
// already in the vocabulary is one token); and the BOS token when the post-processor's template
// adds it — or, for a file whose post-processor has no template, when tokenizer_config.json
// beside it names a bos_token and does not set add_bos_token to false (Llama 3's original
// tokenizer.json, whose models always start with <|begin_of_text|>).
#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.hpp"

namespace poslab {

class BpeTokenizer {
 public:
  // Reads `path` and, if present, tokenizer_config.json in the same folder.
  static Result<BpeTokenizer> load(const std::filesystem::path& path);
  // The same from text; `config_json` may be empty. `name` is used in messages.
  static Result<BpeTokenizer> parse(std::string_view tokenizer_json, std::string_view config_json, const std::string& name);

  // Token ids of `text` (UTF-8), with the template's special tokens around them. Text the
  // vocabulary has no token for is left out and, with `unknown`, listed there (each once).
  Result<std::vector<int>> encode(std::string_view text, std::vector<std::string>* unknown = nullptr) const;
  // The text a token stands for (bytes decoded back from the byte-level alphabet).
  std::string token_text(int id) const;
  int vocab_size() const { return static_cast<int>(id_to_token_.size()); }
  bool is_special(int id) const;

  struct Regex;  // a compiled PCRE2 pattern (opaque; defined in bpe.cpp)

  BpeTokenizer(BpeTokenizer&&) noexcept;
  BpeTokenizer& operator=(BpeTokenizer&&) noexcept;
  ~BpeTokenizer();

 private:
  BpeTokenizer();
  struct SplitStep {
    std::shared_ptr<Regex> regex;
    bool removed = false;  // behavior "Removed": the matches are dropped
  };

  // parse()'s steps, each reading its part of tokenizer.json.
  Status read_model(const nlohmann::json& root);
  Status read_added_tokens(const nlohmann::json& root);
  Status read_pre_tokenizer(const nlohmann::json& root);
  void build_byte_map();
  Status read_post_processor(const nlohmann::json& root, std::string_view config_json);

  Status pre_tokenize(std::string_view text, std::vector<std::string>& words) const;
  void bpe(const std::string& word, std::vector<int>& out, std::vector<std::string>* unknown) const;
  std::string decode_bytes(const std::string& byte_level) const;  // byte-level symbols back to UTF-8

  std::unordered_map<std::string, int> vocab_;
  std::vector<std::string> id_to_token_;
  std::unordered_map<std::string, int> merge_rank_;  // "left\x01right" → rank
  std::vector<std::pair<std::string, int>> added_;    // content → id, longest first
  std::vector<int> special_ids_;
  std::vector<SplitStep> splits_;                     // the Split steps, in order
  bool byte_level_ = false, byte_level_regex_ = false, add_prefix_space_ = false, ignore_merges_ = false;
  std::shared_ptr<Regex> gpt2_regex_;                 // ByteLevel's own split when use_regex
  std::vector<int> prefix_ids_, suffix_ids_;          // the template's special tokens
  std::vector<std::string> byte_to_unicode_;          // 256 UTF-8 strings
  std::unordered_map<std::string, unsigned char> unicode_to_byte_;
  std::string name_;
};

}  // namespace poslab

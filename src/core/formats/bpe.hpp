#pragma once
// A Hugging Face tokenizer.json with a BPE model, encoded as the tokenizers library encodes it
// (GPT-2, Llama 2 and 3, Gemma 1–3, Qwen 2.5 and 3, DeepSeek V3 and their kin):
//   1. added tokens split out of the raw text (tokenizer_added.hpp);
//   2. each piece between them normalized (tokenizer_normalize.hpp), then split by the added
//      tokens that match normalized text;
//   3. pre-tokenized into words (tokenizer_pretokenize.hpp);
//   4. each word merged by the BPE model (tokenizer_bpe_model.hpp);
//   5. the post-processor's special tokens put around the ids (tokenizer_post.hpp), or
//      tokenizer_config.json's BOS where the post-processor adds none.
// Tokens read as text through the decoder (tokenizer_display.hpp). A component this does not
// implement is refused by name when the file is read, never guessed at.
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/formats/tokenizer_added.hpp"
#include "core/formats/tokenizer_bpe_model.hpp"
#include "core/formats/tokenizer_display.hpp"
#include "core/formats/tokenizer_normalize.hpp"
#include "core/formats/tokenizer_post.hpp"
#include "core/formats/tokenizer_pretokenize.hpp"
#include "core/result.hpp"

namespace poslab {

class BpeTokenizer {
 public:
  // Reads `path` and, if present, tokenizer_config.json in the same folder.
  static Result<BpeTokenizer> load(const std::filesystem::path& path);
  // The same from text; `config_json` may be empty. `name` is used in messages.
  static Result<BpeTokenizer> parse(std::string_view tokenizer_json, std::string_view config_json, const std::string& name);

  // Token ids of `text` (valid UTF-8, else an error), with the special tokens that
  // add_special_tokens=True puts around them. Text the vocabulary has no token for (and no
  // byte or unknown token either) is left out and, with `unknown`, listed there (each once).
  Result<std::vector<int>> encode(std::string_view text, std::vector<std::string>* unknown = nullptr) const;
  // The readable text of each token of a sequence (see tokenizer_display.hpp): this is what a
  // person is shown for the model's tokens.
  std::vector<std::string> token_texts(const std::vector<int>& ids) const;
  // The readable text of one token alone (a broken character's bytes as <0xNN>).
  std::string token_text(int id) const;
  int vocab_size() const { return static_cast<int>(model_.tokens().size()); }
  bool is_special(int id) const;
  // What kind of tokenizer this is, in a few words ("byte-level BPE", "BPE with byte fallback, NFC").
  std::string describe() const;

 private:
  BpeTokenizer() = default;
  Status read(const nlohmann::json& root, std::string_view config_json);
  // Steps 2–4 for a piece of text between raw added tokens.
  Status encode_piece(const std::string& piece, bool at_start, std::vector<int>& ids, std::string* missing) const;

  BpeModel model_;
  AddedTokens added_;
  Normalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  SpecialTokenIds specials_;
  TokenDisplay display_;
  std::vector<bool> added_ids_, special_ids_;  // by id
  std::string name_, description_;
};

}  // namespace poslab

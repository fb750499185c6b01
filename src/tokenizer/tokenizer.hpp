#pragma once
// A Hugging Face tokenizer.json, encoded as the tokenizers library encodes it: BPE (GPT-2, Llama 2
// and 3, Gemma 1–3, Qwen 2.5 and 3, DeepSeek V3, ModernBERT and their kin), WordPiece (BERT) or
// Unigram (T5, Flan-T5). The class keeps its first name, from when BPE was all it read.
//   1. added tokens split out of the raw text (tokenizer_added.hpp);
//   2. each piece between them normalized (tokenizer_normalize.hpp), then split by the added
//      tokens that match normalized text;
//   3. pre-tokenized into words (tokenizer_pretokenize.hpp);
//   4. each word tokenized by the model (tokenizer_model.hpp: BPE's merges, WordPiece's longest
//      pieces, Unigram's best segmentation);
//   5. the post-processor's special tokens put around the ids (tokenizer_post.hpp), or
//      tokenizer_config.json's BOS where the post-processor adds none.
// Tokens read as text through the decoder (tokenizer_display.hpp). A component this does not
// implement is refused by name when the file is read, never guessed at.
// This header is the tokenizer library's whole public face: the steps' headers beside it are
// private to src/tokenizer (tests/layout_test.sh checks it), so that a model or a view that
// reads tokens compiles against this file alone.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"

namespace poslab {

// Text as a message may show it (tokenizer_text.hpp's, public here for the word-level tokenizer's
// messages): bytes that are not valid UTF-8 as \xNN, and control characters (NUL) as \u00XX.
std::string printable_utf8(std::string_view bytes);
std::string escape_controls(std::string_view text);

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
  int vocab_size() const;
  // An added token marked special ([CLS], </s>, <|begin_of_text|>, [MASK]).
  bool is_special(int id) const;
  // The token a masked-LM model fills in ([MASK], <mask>): tokenizer_config.json's mask_token,
  // else a special added token spelled [MASK] or <mask>; -1 when there is none (T5, decoders).
  int mask_token_id() const;
  // What kind of tokenizer this is, in a few words ("byte-level BPE", "BPE with byte fallback, NFC",
  // "WordPiece, normalizer BertNormalizer").
  std::string describe() const;

 private:
  // The steps, read once and never changed after: copies of a tokenizer share them.
  struct Parts;
  explicit BpeTokenizer(std::shared_ptr<const Parts> parts) : parts_(std::move(parts)) {}
  std::shared_ptr<const Parts> parts_;
};

}  // namespace poslab

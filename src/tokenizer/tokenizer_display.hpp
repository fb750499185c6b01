#pragma once
// Tokens as a person reads them: what each token of a sentence stands for, as text. The file's
// "decoder" says how its tokens read (ByteLevel: GPT-2's alphabet back to bytes; Replace: "▁"
// back to a space; ByteFallback: <0xNN> tokens back to bytes; Metaspace; WordPiece: a "##" piece
// joins the word before it, any other token starts a word after a space); without one, the
// pre-tokenizer's ByteLevel or Metaspace, or the WordPiece model, says the same.
//
// A character whose bytes are spread over several tokens (an emoji in Llama 2's <0xF0><0x9F>…,
// or in GPT-2's two byte-level tokens) is shown whole on the first of them and the others read
// "" — so that every label is valid UTF-8 and none is a broken character. A byte that forms no
// character even so is shown as <0xNN>.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

namespace poslab {

class TokenDisplay {
 public:
  TokenDisplay() = default;
  // `decoder` is tokenizer.json's "decoder" (null: none). Decoders that change no single token's
  // reading (Fuse, Strip) and unknown ones are passed over: this is for display only.
  // `wordpiece_prefix`: the WordPiece model's continuing_subword_prefix ("" for other models).
  TokenDisplay(const nlohmann::json& decoder, bool byte_level, const std::string& metaspace, bool byte_fallback,
               const std::string& wordpiece_prefix = "");

  // The bytes one token stands for (special tokens are given as they are by the caller).
  std::string bytes(const std::string& token) const;
  // The readable text of each token; `special[k]`: token k is an added token, shown as written.
  std::vector<std::string> show(const std::vector<std::string>& tokens, const std::vector<bool>& special) const;

 private:
  void read(const nlohmann::json& decoder, int depth);

  // WordPiece's reading of one token: the prefix dropped from a continuing piece, a space before
  // any other, and with cleanup no space before . , ! ? (as the decoder's cleanup joins them).
  std::string wordpiece(const std::string& token) const;

  bool byte_level_ = false, byte_fallback_ = false, wordpiece_ = false, cleanup_ = true;
  std::string wordpiece_prefix_;
  std::vector<std::pair<std::string, std::string>> replacements_;  // literal → text
};

}  // namespace poslab

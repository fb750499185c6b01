#include "tokenizer/tokenizer_display.hpp"

#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer_pretokenize.hpp"
#include "tokenizer/tokenizer_text.hpp"

namespace poslab {

using json = nlohmann::json;

namespace {

// The byte of a "<0xNN>" token, or -1.
int fallback_byte(const std::string& token) {
  if (token.size() != 6 || !token.starts_with("<0x") || token[5] != '>') return -1;
  int value = 0;
  for (int k = 3; k < 5; ++k) {
    const char c = token[static_cast<std::size_t>(k)];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

std::string replace_literal(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// The longest run of tokens from `k` (at most a few: a character has at most four bytes) whose
// bytes together are valid UTF-8; 0 when there is none.
std::size_t joined_run(const std::vector<std::string>& bytes, const std::vector<bool>& special, std::size_t k) {
  std::string joined;
  for (std::size_t j = k; j < bytes.size() && j < k + 8 && !special[j]; ++j) {
    joined += bytes[j];
    if (valid_utf8(joined)) return j - k + 1;
  }
  return 0;
}

}  // namespace

TokenDisplay::TokenDisplay(const json& decoder, bool byte_level, const std::string& metaspace, bool byte_fallback,
                           const std::string& wordpiece_prefix) {
  if (decoder.is_object()) {
    read(decoder, 0);
  } else {
    byte_level_ = byte_level;
    byte_fallback_ = byte_fallback;
    if (!metaspace.empty()) replacements_.emplace_back(metaspace, " ");
    wordpiece_ = !wordpiece_prefix.empty();
    wordpiece_prefix_ = wordpiece_prefix;
  }
}

std::string TokenDisplay::wordpiece(const std::string& token) const {
  if (!wordpiece_prefix_.empty() && token.starts_with(wordpiece_prefix_)) return token.substr(wordpiece_prefix_.size());
  if (cleanup_ && (token == "." || token == "," || token == "!" || token == "?")) return token;
  return " " + token;
}

void TokenDisplay::read(const json& decoder, int depth) {
  // For display only: a decoder this cannot read changes nothing, and never refuses the file.
  if (depth > 16 || !decoder.is_object() || !decoder.contains("type") || !decoder["type"].is_string()) return;
  const std::string type = decoder["type"].get<std::string>();
  if (type == "Sequence" && decoder.contains("decoders") && decoder["decoders"].is_array()) {
    for (const json& member : decoder["decoders"]) read(member, depth + 1);
  } else if (type == "ByteLevel") {
    byte_level_ = true;
  } else if (type == "ByteFallback") {
    byte_fallback_ = true;
  } else if (type == "Metaspace") {
    const json r = decoder.value("replacement", json("\u2581"));
    if (r.is_string()) replacements_.emplace_back(r.get<std::string>(), " ");
  } else if (type == "Replace" && decoder.contains("pattern") && decoder["pattern"].is_object()) {
    const json& p = decoder["pattern"];
    const json content = decoder.value("content", json(""));
    if (p.contains("String") && p["String"].is_string() && content.is_string())
      replacements_.emplace_back(p["String"].get<std::string>(), content.get<std::string>());
  } else if (type == "WordPiece") {
    const json prefix = decoder.value("prefix", json("##"));
    const json cleanup = decoder.value("cleanup", json(true));
    wordpiece_ = true;
    if (prefix.is_string()) wordpiece_prefix_ = prefix.get<std::string>();
    if (cleanup.is_boolean()) cleanup_ = cleanup.get<bool>();
  } else if (type == "BPEDecoder") {
    const json suffix = decoder.value("suffix", json("</w>"));
    if (suffix.is_string()) replacements_.emplace_back(suffix.get<std::string>(), " ");
  }
}

std::string TokenDisplay::bytes(const std::string& token) const {
  if (byte_fallback_)
    if (const int b = fallback_byte(token); b >= 0) return std::string(1, static_cast<char>(static_cast<unsigned char>(b)));
  std::string s = token;
  for (const auto& [from, to] : replacements_) s = replace_literal(std::move(s), from, to);
  if (!byte_level_) return s;
  std::string out;
  for (const std::string& c : utf8_characters(s)) {
    const int b = byte_level_byte(c);
    out += b >= 0 ? std::string(1, static_cast<char>(static_cast<unsigned char>(b))) : c;
  }
  return out;
}

std::vector<std::string> TokenDisplay::show(const std::vector<std::string>& tokens, const std::vector<bool>& special) const {
  std::vector<std::string> bytes_of(tokens.size()), out(tokens.size());
  for (std::size_t k = 0; k < tokens.size(); ++k) bytes_of[k] = special[k] ? tokens[k] : bytes(wordpiece_ ? wordpiece(tokens[k]) : tokens[k]);
  for (std::size_t k = 0; k < tokens.size();) {
    const std::size_t run = special[k] ? 1 : joined_run(bytes_of, special, k);
    if (run == 0) {  // no character forms: the bytes as they are, the broken ones as <0xNN>
      out[k] = printable_utf8(bytes_of[k]);
      ++k;
      continue;
    }
    for (std::size_t j = k; j < k + run; ++j) out[k] += bytes_of[j];
    k += run;  // the tokens after the first of a joined character read ""
  }
  return out;
}

}  // namespace poslab

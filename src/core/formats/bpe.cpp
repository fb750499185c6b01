#include "core/formats/bpe.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>

#include "core/formats/files.hpp"

namespace poslab {

using json = nlohmann::json;

struct BpeTokenizer::Regex {
  pcre2_code* code = nullptr;
  ~Regex() { pcre2_code_free(code); }
};

namespace {

// GPT-2's split, used by a ByteLevel pre-tokenizer with use_regex.
constexpr const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// A token id: a JSON integer from 0 to INT_MAX (a float or a huge number is an error, never
// converted).
Result<int> token_id(const json& v, const std::string& name, const std::string& what) {
  if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > INT_MAX)
    return Error{name + ": " + what + " must be a whole number from 0 to " + std::to_string(INT_MAX) + ", found " + v.dump()};
  return static_cast<int>(v.get<long long>());
}

std::string utf8(unsigned int cp) {
  std::string s;
  if (cp < 0x80) s += static_cast<char>(cp);
  else if (cp < 0x800) s += static_cast<char>(0xC0 | (cp >> 6)), s += static_cast<char>(0x80 | (cp & 0x3F));
  else
    s += static_cast<char>(0xE0 | (cp >> 12)), s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
        s += static_cast<char>(0x80 | (cp & 0x3F));
  return s;
}

// The UTF-8 characters of `s`, each as a string.
std::vector<std::string> characters(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto lead = static_cast<unsigned char>(s[i]);
    const std::size_t n = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

Result<std::shared_ptr<BpeTokenizer::Regex>> compile(const std::string& pattern, const std::string& name) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                                   &error, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    return Error{name + ": the pre-tokenizer's regex does not compile at offset " + std::to_string(offset) + ": " +
                 reinterpret_cast<const char*>(message)};
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // faster where available; plain matching otherwise
  auto regex = std::make_shared<BpeTokenizer::Regex>();
  regex->code = code;
  return regex;
}

}  // namespace

BpeTokenizer::BpeTokenizer() = default;
BpeTokenizer::BpeTokenizer(BpeTokenizer&&) noexcept = default;
BpeTokenizer& BpeTokenizer::operator=(BpeTokenizer&&) noexcept = default;
BpeTokenizer::~BpeTokenizer() = default;

Result<BpeTokenizer> BpeTokenizer::load(const std::filesystem::path& path) {
  auto text = read_whole_file(path);
  if (!text) return Error{text.error()};
  std::string config;
  const auto config_path = path.parent_path() / "tokenizer_config.json";
  std::error_code ec;
  if (std::filesystem::exists(config_path, ec))
    if (auto c = read_whole_file(config_path)) config = std::move(*c);
  return parse(*text, config, path.string());
}

Result<BpeTokenizer> BpeTokenizer::parse(std::string_view tokenizer_json, std::string_view config_json, const std::string& name) {
  json root;
  try {
    root = json::parse(tokenizer_json);
  } catch (const json::exception& e) {
    return Error{name + ": not valid JSON: " + json_error_text(e.what())};
  }
  try {
    BpeTokenizer t;
    t.name_ = name;
    const json& model = root.at("model");
    if (model.value("type", std::string("BPE")) != "BPE")
      return Error{name + ": model type " + model.value("type", std::string()) + " is not supported (BPE only)"};
    if (root.contains("normalizer") && !root["normalizer"].is_null())
      return Error{name + ": normalizer " + root["normalizer"].value("type", std::string("?")) +
                   " is not supported (byte-level BPE tokenizers such as Llama 3's have none)"};
    for (auto step : {&BpeTokenizer::read_model, &BpeTokenizer::read_added_tokens, &BpeTokenizer::read_pre_tokenizer})
      if (auto s = (t.*step)(root); !s) return Error{s.error()};
    t.build_byte_map();
    if (auto s = t.read_post_processor(root, config_json); !s) return Error{s.error()};
    return t;
  } catch (const json::exception& e) {
    return Error{name + ": unexpected structure: " + json_error_text(e.what())};
  }
}

// The BPE model: the vocabulary (id by token and token by id) and the merges' ranks.
Status BpeTokenizer::read_model(const json& root) {
  const json& model = root.at("model");
  ignore_merges_ = model.value("ignore_merges", false);
  for (const auto& [token, id] : model.at("vocab").items()) {
    auto parsed = token_id(id, name_, "the id of \"" + token + "\"");
    if (!parsed) return Error{parsed.error()};
    const int i = *parsed;
    if (i >= (1 << 24)) return Error{name_ + ": token id " + std::to_string(i) + " is implausibly large"};
    vocab_[token] = i;
    if (static_cast<std::size_t>(i) >= id_to_token_.size()) id_to_token_.resize(static_cast<std::size_t>(i) + 1);
    id_to_token_[static_cast<std::size_t>(i)] = token;
  }
  int rank = 0;
  for (const json& merge : model.at("merges")) {
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
    merge_rank_.emplace(left + '\x01' + right, rank++);
  }
  return Ok{};
}

// Added tokens (specials among them), matched before anything else, longest first.
Status BpeTokenizer::read_added_tokens(const json& root) {
  for (const json& added : root.value("added_tokens", json::array())) {
    const std::string content = added.at("content").get<std::string>();
    auto parsed = token_id(added.at("id"), name_, "an added token's id");
    if (!parsed) return Error{parsed.error()};
    const int id = *parsed;
    if (id >= (1 << 24)) return Error{name_ + ": added token id " + std::to_string(id) + " is implausibly large"};
    if (content.empty()) continue;
    added_.emplace_back(content, id);
    if (added.value("special", false)) special_ids_.push_back(id);
    if (static_cast<std::size_t>(id) >= id_to_token_.size()) id_to_token_.resize(static_cast<std::size_t>(id) + 1);
    id_to_token_[static_cast<std::size_t>(id)] = content;
    vocab_.emplace(content, id);
  }
  std::sort(added_.begin(), added_.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  return Ok{};
}

// The pre-tokenizer: Split and ByteLevel steps, alone or in a Sequence.
Status BpeTokenizer::read_pre_tokenizer(const json& root) {
  std::vector<json> steps;
  if (root.contains("pre_tokenizer") && !root["pre_tokenizer"].is_null()) {
    const json& pre = root["pre_tokenizer"];
    if (pre.value("type", std::string()) == "Sequence") {
      for (const json& step : pre.at("pretokenizers")) steps.push_back(step);
    } else {
      steps.push_back(pre);
    }
  }
  for (const json& step : steps) {
    const std::string type = step.value("type", std::string());
    if (type == "Split") {
      const json& pattern = step.at("pattern");
      if (step.value("invert", false)) return Error{name_ + ": an inverted Split is not supported"};
      const std::string behavior = step.value("behavior", std::string("Isolated"));
      if (behavior != "Isolated" && behavior != "Removed")
        return Error{name_ + ": Split behavior " + behavior + " is not supported (Isolated, Removed)"};
      std::string regex_text;
      if (pattern.contains("Regex")) {
        regex_text = pattern["Regex"].get<std::string>();
      } else {  // a plain string: match it literally
        for (char c : pattern.at("String").get<std::string>()) {
          if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) regex_text += '\\';
          regex_text += c;
        }
      }
      auto regex = compile(regex_text, name_);
      if (!regex) return Error{regex.error()};
      splits_.push_back({*regex, behavior == "Removed"});
    } else if (type == "ByteLevel") {
      byte_level_ = true;
      add_prefix_space_ = step.value("add_prefix_space", false);
      byte_level_regex_ = step.value("use_regex", true);
    } else {
      return Error{name_ + ": pre-tokenizer " + type + " is not supported (Split, ByteLevel)"};
    }
  }
  if (!byte_level_) return Error{name_ + ": not a byte-level BPE tokenizer (no ByteLevel pre-tokenizer)"};
  if (byte_level_regex_) {
    auto regex = compile(kGpt2Pattern, name_);
    if (!regex) return Error{regex.error()};
    gpt2_regex_ = *regex;
  }
  return Ok{};
}

// Byte-to-unicode: printable bytes stand for themselves, the others for 256, 257, ….
void BpeTokenizer::build_byte_map() {
  byte_to_unicode_.resize(256);
  unsigned int next = 256;
  for (unsigned int b = 0; b < 256; ++b) {
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
    byte_to_unicode_[b] = utf8(printable ? b : next++);
    unicode_to_byte_[byte_to_unicode_[b]] = static_cast<unsigned char>(b);
  }
}

// The post-processor's template: special tokens before and after the sequence (or, without one,
// tokenizer_config.json's add_bos_token).
Status BpeTokenizer::read_post_processor(const json& root, std::string_view config_json) {
  std::vector<json> processors;
  if (root.contains("post_processor") && !root["post_processor"].is_null()) {
    const json& post = root["post_processor"];
    if (post.value("type", std::string()) == "Sequence")
      for (const json& p : post.at("processors")) processors.push_back(p);
    else
      processors.push_back(post);
  }
  bool templated = false;
  for (const json& p : processors) {
    if (p.value("type", std::string()) != "TemplateProcessing") continue;
    templated = true;
    bool after = false;
    for (const json& item : p.at("single")) {
      if (item.contains("Sequence")) {
        after = true;
        continue;
      }
      const std::string token = item.at("SpecialToken").at("id").get<std::string>();
      std::vector<int> ids;
      const json& specials = p.value("special_tokens", json::object());
      if (specials.contains(token)) {
        for (const json& id : specials[token].at("ids")) {
          auto parsed = token_id(id, name_, "the post-processor's id of " + token);
          if (!parsed) return Error{parsed.error()};
          ids.push_back(*parsed);
        }
      } else if (auto it = vocab_.find(token); it != vocab_.end()) {
        ids.push_back(it->second);
      } else {
        return Error{name_ + ": the post-processor names an unknown special token " + token};
      }
      (after ? suffix_ids_ : prefix_ids_).insert((after ? suffix_ids_ : prefix_ids_).end(), ids.begin(), ids.end());
    }
  }
  if (!templated && !config_json.empty()) {
    const json config = json::parse(config_json, nullptr, false);
    if (config.is_object() && config.value("add_bos_token", true)) {
      std::string bos;
      if (config.contains("bos_token") && config["bos_token"].is_string()) bos = config["bos_token"].get<std::string>();
      else if (config.contains("bos_token") && config["bos_token"].is_object()) bos = config["bos_token"].value("content", std::string());
      if (auto it = vocab_.find(bos); !bos.empty() && it != vocab_.end()) prefix_ids_.push_back(it->second);
    }
  }
  return Ok{};
}

namespace {

// Splits `text` with `regex`: the matches and the gaps between them, in order (Isolated), or
// the gaps only (Removed).
Status split(const BpeTokenizer::Regex& regex, bool removed, const std::string& text, std::vector<std::string>& out,
             const std::string& name) {
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(regex.code, nullptr);
  PCRE2_SIZE start = 0, gap = 0;
  Status status = Ok{};
  while (start <= text.size()) {
    const int rc = pcre2_match(regex.code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), start, 0, match, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof message);
      status = Error{name + ": cannot split the text: " + reinterpret_cast<const char*>(message)};
      break;
    }
    const PCRE2_SIZE* v = pcre2_get_ovector_pointer(match);
    if (v[0] > gap) out.push_back(text.substr(gap, v[0] - gap));
    if (v[1] > v[0] && !removed) out.push_back(text.substr(v[0], v[1] - v[0]));
    gap = v[1];
    if (v[1] == v[0]) {  // an empty match: step over one character
      if (v[1] >= text.size()) break;
      start = v[1] + 1;
      while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
    } else {
      start = v[1];
    }
  }
  if (gap < text.size() && status) out.push_back(text.substr(gap));
  pcre2_match_data_free(match);
  return status;
}

}  // namespace

Status BpeTokenizer::pre_tokenize(std::string_view text, std::vector<std::string>& words) const {
  std::vector<std::string> pieces{std::string(text)};
  for (const SplitStep& step : splits_) {
    std::vector<std::string> next;
    for (const std::string& piece : pieces)
      if (auto s = split(*step.regex, step.removed, piece, next, name_); !s) return s;
    pieces = std::move(next);
  }
  if (add_prefix_space_ && !pieces.empty() && !pieces.front().starts_with(' ')) pieces.front().insert(0, " ");
  if (byte_level_regex_) {
    std::vector<std::string> next;
    for (const std::string& piece : pieces)
      if (auto s = split(*gpt2_regex_, false, piece, next, name_); !s) return s;
    pieces = std::move(next);
  }
  for (const std::string& piece : pieces) {
    std::string mapped;
    for (char c : piece) mapped += byte_to_unicode_[static_cast<unsigned char>(c)];
    words.push_back(std::move(mapped));
  }
  return Ok{};
}

void BpeTokenizer::bpe(const std::string& word, std::vector<int>& out, std::vector<std::string>* unknown) const {
  if (ignore_merges_)
    if (auto it = vocab_.find(word); it != vocab_.end()) {
      out.push_back(it->second);
      return;
    }
  std::vector<std::string> symbols = characters(word);
  while (symbols.size() > 1) {
    int best = INT_MAX;
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i)
      if (auto it = merge_rank_.find(symbols[i] + '\x01' + symbols[i + 1]); it != merge_rank_.end() && it->second < best) {
        best = it->second;
        at = i;
      }
    if (best == INT_MAX) break;
    // Merge every occurrence of the best pair, left to right.
    const std::string left = symbols[at], right = symbols[at + 1];
    std::vector<std::string> merged;
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
        merged.push_back(left + right);
        ++i;
      } else {
        merged.push_back(symbols[i]);
      }
    }
    symbols = std::move(merged);
  }
  // Only a vocabulary without the whole byte alphabet leaves symbols unknown (a PosLab task's):
  // what it has no token for is left out, and said. The byte-level symbols are decoded together,
  // so that a UTF-8 character stays whole.
  std::string missing;
  for (const std::string& s : symbols) {
    if (auto it = vocab_.find(s); it != vocab_.end()) {
      out.push_back(it->second);
      continue;
    }
    for (const std::string& c : characters(s)) {
      if (auto ct = vocab_.find(c); ct != vocab_.end()) out.push_back(ct->second);
      else missing += c;
    }
  }
  if (!unknown || missing.empty()) return;
  for (const std::string& text : characters(decode_bytes(missing)))
    if (std::find(unknown->begin(), unknown->end(), text) == unknown->end()) unknown->push_back(text);
}

std::string BpeTokenizer::decode_bytes(const std::string& byte_level) const {
  std::string out;
  for (const std::string& c : characters(byte_level)) {
    if (auto it = unicode_to_byte_.find(c); it != unicode_to_byte_.end()) out += static_cast<char>(it->second);
    else out += c;
  }
  return out;
}

Result<std::vector<int>> BpeTokenizer::encode(std::string_view text, std::vector<std::string>* unknown) const {
  std::vector<int> ids = prefix_ids_;
  // Added tokens first: they are never split or merged.
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t found = std::string_view::npos;
    const std::pair<std::string, int>* which = nullptr;
    for (const auto& added : added_) {  // longest first, so the earliest longest match wins
      const std::size_t at = text.find(added.first, pos);
      if (at != std::string_view::npos && (at < found)) {
        found = at;
        which = &added;
      }
    }
    const std::string_view segment = text.substr(pos, found == std::string_view::npos ? std::string_view::npos : found - pos);
    if (!segment.empty()) {
      std::vector<std::string> words;
      if (auto s = pre_tokenize(segment, words); !s) return Error{s.error()};
      for (const std::string& w : words) bpe(w, ids, unknown);
    }
    if (!which) break;
    ids.push_back(which->second);
    pos = found + which->first.size();
  }
  ids.insert(ids.end(), suffix_ids_.begin(), suffix_ids_.end());
  return ids;
}

std::string BpeTokenizer::token_text(int id) const {
  if (id < 0 || id >= vocab_size()) return "";
  const std::string& token = id_to_token_[static_cast<std::size_t>(id)];
  if (is_special(id)) return token;
  return decode_bytes(token);
}

bool BpeTokenizer::is_special(int id) const {
  return std::find(special_ids_.begin(), special_ids_.end(), id) != special_ids_.end();
}

}  // namespace poslab

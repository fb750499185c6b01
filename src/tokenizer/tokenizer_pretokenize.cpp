#include "tokenizer/tokenizer_pretokenize.hpp"

#include <nlohmann/json.hpp>
#include <unordered_map>

namespace poslab {

using json = nlohmann::json;

namespace {

// GPT-2's split, used by a ByteLevel pre-tokenizer with use_regex.
constexpr const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
// One punctuation character, as tokenizers' is_punc: ASCII punctuation (which takes in symbols
// such as $ + < = > ^ ` | ~) or Unicode's P categories.
constexpr const char* kPunctuation = R"([!-/:-@\[-`{-~\p{P}])";
// Runs of word characters (Oniguruma's Unicode \w: letters, marks, digits, connectors) and runs
// of other visible characters: the words of a Whitespace pre-tokenizer.
constexpr const char* kWordsOrSymbols = R"([\p{L}\p{M}\p{Nd}\p{Pc}]+|[^\p{L}\p{M}\p{Nd}\p{Pc}\s]+)";

Result<SplitBehavior> behavior_of(const std::string& name, const std::string& what) {
  if (name == "Removed") return SplitBehavior::Removed;
  if (name == "Isolated") return SplitBehavior::Isolated;
  if (name == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (name == "Contiguous") return SplitBehavior::Contiguous;
  return Error{what + ": split behavior " + name +
               " is not supported (Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)"};
}

struct Span {
  std::size_t begin, end;
  bool delimiter;
};

// Folds the delimiters into their neighbours as `behavior` says (tokenizers' split rules: a
// delimiter merges into the previous or next piece only if that piece is not a delimiter too).
std::vector<Span> apply_behavior(const std::vector<Span>& spans, SplitBehavior behavior) {
  std::vector<Span> out;
  bool previous_delimiter = false;
  switch (behavior) {
    case SplitBehavior::Removed:
      for (const Span& s : spans)
        if (!s.delimiter) out.push_back(s);
      return out;
    case SplitBehavior::Isolated:
      return spans;
    case SplitBehavior::MergedWithPrevious:
      for (const Span& s : spans) {
        if (s.delimiter && !previous_delimiter && !out.empty()) out.back().end = s.end;
        else out.push_back({s.begin, s.end, false});
        previous_delimiter = s.delimiter;
      }
      return out;
    case SplitBehavior::MergedWithNext:
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->delimiter && !previous_delimiter && !out.empty()) out.back().begin = it->begin;
        else out.push_back({it->begin, it->end, false});
        previous_delimiter = it->delimiter;
      }
      return {out.rbegin(), out.rend()};
    case SplitBehavior::Contiguous:
      for (const Span& s : spans) {
        if (s.delimiter == previous_delimiter && !out.empty()) out.back().end = s.end;
        else out.push_back(s);
        previous_delimiter = s.delimiter;
      }
      return out;
  }
  return out;
}

}  // namespace

Status split_text(const TextPattern& pattern, SplitBehavior behavior, bool invert, std::string_view text,
                  std::vector<std::string>& out, std::vector<std::size_t>* begins) {
  std::vector<std::pair<std::size_t, std::size_t>> matches;
  if (auto s = pattern.find_all(text, matches); !s) return s;
  std::vector<Span> spans;
  std::size_t previous = 0;
  for (const auto& [begin, end] : matches) {
    if (begin > previous) spans.push_back({previous, begin, invert});
    spans.push_back({begin, end, !invert});
    previous = end;
  }
  if (previous < text.size()) spans.push_back({previous, text.size(), invert});
  for (const Span& s : apply_behavior(spans, behavior)) {
    if (s.end <= s.begin) continue;
    out.emplace_back(text.substr(s.begin, s.end - s.begin));
    if (begins) begins->push_back(s.begin);
  }
  return Ok{};
}

const std::array<std::string, 256>& byte_level_alphabet() {
  static const std::array<std::string, 256> alphabet = [] {
    std::array<std::string, 256> a;
    char32_t next = 256;
    for (char32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
      a[b] = utf8_encode(printable ? b : next++);
    }
    return a;
  }();
  return alphabet;
}

int byte_level_byte(std::string_view character) {
  static const std::unordered_map<std::string, int> bytes = [] {
    std::unordered_map<std::string, int> m;
    for (int b = 0; b < 256; ++b) m.emplace(byte_level_alphabet()[static_cast<std::size_t>(b)], b);
    return m;
  }();
  const auto it = bytes.find(std::string(character));
  return it == bytes.end() ? -1 : it->second;
}

Result<PreTokenizer> PreTokenizer::parse(const json& config, const std::string& name) {
  PreTokenizer p;
  p.name_ = name;
  if (config.is_null()) return p;
  if (auto s = p.add(config, 0); !s) return Error{s.error()};
  return p;
}

Status PreTokenizer::add_pattern(const std::string& regex, SplitBehavior behavior, bool invert, const std::string& what) {
  auto pattern = TextPattern::regex(regex, what);
  if (!pattern) return Error{pattern.error()};
  Step step;
  step.pattern = std::move(*pattern);
  step.behavior = behavior;
  step.invert = invert;
  steps_.push_back(std::move(step));
  return Ok{};
}

// One pre-tokenizer; those that only split become Split steps with their own pattern.
Status PreTokenizer::add(const json& config, int depth) {
  if (depth > 16) return Error{name_ + ": pre-tokenizers nested too deep"};
  const std::string type = config.at("type").get<std::string>();
  const std::string what = name_ + ": pre-tokenizer " + type;
  if (type == "Sequence") {
    for (const json& member : config.at("pretokenizers"))
      if (auto s = add(member, depth + 1); !s) return s;
    return Ok{};
  }
  if (type == "Split") return add_split(config, what);
  if (type == "ByteLevel") return add_byte_level(config, what);
  if (type == "Metaspace") return add_metaspace(config);
  if (type == "Digits")
    return add_pattern(config.value("individual_digits", false) ? R"(\p{N})" : R"(\p{N}+)", SplitBehavior::Isolated, false, what);
  if (type == "Punctuation") {
    auto behavior = behavior_of(config.value("behavior", std::string("Isolated")), what);
    if (!behavior) return Error{behavior.error()};
    return add_pattern(kPunctuation, *behavior, false, what);
  }
  if (type == "Whitespace") return add_pattern(kWordsOrSymbols, SplitBehavior::Removed, true, what);
  if (type == "WhitespaceSplit") return add_pattern(kWhiteSpaceClass, SplitBehavior::Removed, false, what);
  if (type == "BertPreTokenizer") {
    if (auto s = add_pattern(kWhiteSpaceClass, SplitBehavior::Removed, false, what); !s) return s;
    return add_pattern(kPunctuation, SplitBehavior::Isolated, false, what);
  }
  if (type == "CharDelimiterSplit") {
    // tokenizers reads the delimiter as one Rust char: anything else does not load there.
    const std::string delimiter = config.at("delimiter").get<std::string>();
    if (!valid_utf8(delimiter) || utf8_characters(delimiter).size() != 1)
      return Error{what + ": the delimiter must be one character, found \"" + printable_utf8(delimiter) + "\""};
    Step step;
    step.pattern = TextPattern::literal(delimiter);
    step.behavior = SplitBehavior::Removed;
    steps_.push_back(std::move(step));
    return Ok{};
  }
  return Error{what + " is not supported (Sequence, Split, ByteLevel, Metaspace, Digits, Punctuation, Whitespace, "
                      "WhitespaceSplit, BertPreTokenizer, CharDelimiterSplit)"};
}

Status PreTokenizer::add_split(const json& config, const std::string& what) {
  auto pattern = TextPattern::parse(config.at("pattern"), what);
  if (!pattern) return Error{pattern.error()};
  auto behavior = behavior_of(config.value("behavior", std::string("Isolated")), what);
  if (!behavior) return Error{behavior.error()};
  Step step;
  step.pattern = std::move(*pattern);
  step.behavior = *behavior;
  step.invert = config.value("invert", false);
  steps_.push_back(std::move(step));
  return Ok{};
}

Status PreTokenizer::add_byte_level(const json& config, const std::string& what) {
  Step step;
  step.kind = Kind::ByteLevel;
  step.add_prefix_space = config.value("add_prefix_space", true);
  step.use_regex = config.value("use_regex", true);
  if (step.use_regex) {
    auto pattern = TextPattern::regex(kGpt2Pattern, what);
    if (!pattern) return Error{pattern.error()};
    step.pattern = std::move(*pattern);
  }
  steps_.push_back(std::move(step));
  return Ok{};
}

// Metaspace: spaces become the replacement ("▁"), which is prepended as prepend_scheme says (older
// files say add_prefix_space instead: true is "always"), and each word starts at one.
Status PreTokenizer::add_metaspace(const json& config) {
  Step step;
  step.kind = Kind::Metaspace;
  step.replacement = config.value("replacement", std::string("\u2581"));
  if (step.replacement.empty() || utf8_characters(step.replacement).size() != 1)
    return Error{name_ + ": Metaspace's replacement must be one character, found \"" + step.replacement + "\""};
  std::string scheme = config.value("add_prefix_space", true) ? "always" : "never";
  if (config.contains("prepend_scheme") && config["prepend_scheme"].is_string()) scheme = config["prepend_scheme"].get<std::string>();
  if (scheme == "always") step.prepend = Prepend::Always;
  else if (scheme == "first") step.prepend = Prepend::First;
  else if (scheme == "never") step.prepend = Prepend::Never;
  else return Error{name_ + ": Metaspace's prepend_scheme " + scheme + " is not one of always, first, never"};
  step.split = config.value("split", true);
  step.pattern = TextPattern::literal(step.replacement);
  steps_.push_back(std::move(step));
  return Ok{};
}

// One step on one piece; the pieces it makes keep at_start only where they begin the piece.
Status PreTokenizer::run(const Step& step, Piece piece, std::vector<Piece>& out) const {
  std::vector<std::string> parts;
  std::vector<std::size_t> begins;  // where each part begins in the piece
  bool split = true;
  if (step.kind == Kind::ByteLevel) {
    if (step.add_prefix_space && !piece.text.starts_with(' ')) piece.text = " " + piece.text;
    split = step.use_regex;
  } else if (step.kind == Kind::Metaspace) {
    std::string replaced;
    replaced.reserve(piece.text.size());
    for (char c : piece.text)
      if (c == ' ')
        replaced += step.replacement;
      else
        replaced += c;
    const bool prepend = step.prepend == Prepend::Always || (step.prepend == Prepend::First && piece.at_start);
    if (prepend && !replaced.starts_with(step.replacement)) replaced = step.replacement + replaced;
    piece.text = std::move(replaced);
    split = step.split;
  }
  if (split) {
    const SplitBehavior behavior = step.kind == Kind::Metaspace ? SplitBehavior::MergedWithNext : step.behavior;
    if (auto s = split_text(step.pattern, behavior, step.invert, piece.text, parts, &begins); !s)
      return Error{name_ + ": " + s.error()};
  } else if (!piece.text.empty()) {
    parts.push_back(std::move(piece.text));
    begins.push_back(0);
  }
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (step.kind == Kind::ByteLevel) {  // each byte as its character of the alphabet
      std::string mapped;
      for (char c : parts[k]) mapped += byte_level_alphabet()[static_cast<unsigned char>(c)];
      parts[k] = std::move(mapped);
    }
    out.push_back({std::move(parts[k]), piece.at_start && begins[k] == 0});
  }
  return Ok{};
}

Status PreTokenizer::apply(std::string_view text, bool at_start, std::vector<std::string>& words) const {
  std::vector<Piece> pieces{{std::string(text), at_start}};
  for (const Step& step : steps_) {
    std::vector<Piece> next;
    for (Piece& piece : pieces)
      if (auto s = run(step, std::move(piece), next); !s) return s;
    pieces = std::move(next);
  }
  for (Piece& piece : pieces)
    if (!piece.text.empty()) words.push_back(std::move(piece.text));
  return Ok{};
}

bool PreTokenizer::byte_level() const {
  for (const Step& step : steps_)
    if (step.kind == Kind::ByteLevel) return true;
  return false;
}

std::string PreTokenizer::metaspace() const {
  for (const Step& step : steps_)
    if (step.kind == Kind::Metaspace) return step.replacement;
  return "";
}

}  // namespace poslab

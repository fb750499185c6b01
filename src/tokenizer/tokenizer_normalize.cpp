#include "tokenizer/tokenizer_normalize.hpp"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include <nlohmann/json.hpp>

#include "base/text.hpp"

namespace poslab {

using json = nlohmann::json;

namespace {

// UTF-8 to ICU's UTF-16 and back. The text was checked to be valid UTF-8 before, so the
// conversions fail only on memory.
Result<std::u16string> to_utf16(std::string_view text) {
  UErrorCode error = U_ZERO_ERROR;
  int32_t length = 0;
  u_strFromUTF8(nullptr, 0, &length, text.data(), static_cast<int32_t>(text.size()), &error);
  std::u16string out(static_cast<std::size_t>(length), u'\0');
  error = U_ZERO_ERROR;
  u_strFromUTF8(out.data(), length, nullptr, text.data(), static_cast<int32_t>(text.size()), &error);
  if (U_FAILURE(error)) return Error{std::string("cannot convert the text to UTF-16: ") + u_errorName(error)};
  return out;
}

std::string to_utf8(const std::u16string& text) {
  UErrorCode error = U_ZERO_ERROR;
  int32_t length = 0;
  u_strToUTF8(nullptr, 0, &length, text.data(), static_cast<int32_t>(text.size()), &error);
  std::string out(static_cast<std::size_t>(length), '\0');
  error = U_ZERO_ERROR;
  u_strToUTF8(out.data(), length, nullptr, text.data(), static_cast<int32_t>(text.size()), &error);
  return U_FAILURE(error) ? std::string() : out;
}

// The Unicode version a character was assigned in (its major number; 0 for unassigned ones).
int unicode_age(char32_t cp) {
  UVersionInfo age;
  u_charAge(static_cast<UChar32>(cp), age);
  return age[0];
}

// A character's general category as tokenizers' BertNormalizer sees it: through the
// unicode_categories crate, whose tables are Unicode 8.0's. A character assigned later is
// unassigned there (and Cn is not among the categories BERT removes), and the few whose category
// has changed since — found by checking every code point against tokenizers — have their old one:
// U+1734 was Mn until 14.0; U+1885 and U+1886 became Mn in 9.0, U+111C9 in 11.0, U+A9BD in 12.0.
UCharCategory category_of_unicode_8(char32_t cp) {
  if (cp == 0x1734) return U_NON_SPACING_MARK;
  if (cp == 0x1885 || cp == 0x1886 || cp == 0x111C9 || cp == 0xA9BD) return U_OTHER_LETTER;
  if (unicode_age(cp) > 8) return U_UNASSIGNED;
  return static_cast<UCharCategory>(u_charType(static_cast<UChar32>(cp)));
}

// NFD as BertNormalizer's strip_accents applies it (unicode-normalization-alignments, Unicode 9.0
// tables): a character assigned later has no decomposition there and passes through unchanged,
// so the text is decomposed a run of older characters at a time.
Result<std::string> bert_nfd(std::string_view text) {
  std::string out, run;
  for (const std::string& c : utf8_characters(text)) {
    if (unicode_age(utf8_code_point(c)) <= 9) {
      run += c;
      continue;
    }
    auto decomposed = normalize_unicode(run, NormalForm::Nfd);
    if (!decomposed) return Error{decomposed.error()};
    out += *decomposed + c;
    run.clear();
  }
  auto decomposed = normalize_unicode(run, NormalForm::Nfd);
  if (!decomposed) return Error{decomposed.error()};
  return out + *decomposed;
}

// Case pairs that Unicode 16.0 and 17.0 added: tokenizers lowercases through Rust's standard
// library, which has them, and Debian 12's ICU 72 (Unicode 15.0) does not. Used only where ICU
// leaves the character as it is, so a newer ICU changes nothing. 0: no such pair.
char32_t newer_lowercase(char32_t cp) {
  if (cp >= 0x10D50 && cp <= 0x10D65) return cp + 0x20;  // Garay
  if (cp >= 0x16EA0 && cp <= 0x16EB8) return cp + 0x1B;  // Beria Erfe
  switch (cp) {
    case 0x1C89: return 0x1C8A;
    case 0xA7CB: return 0x0264;
    case 0xA7CC: return 0xA7CD;
    case 0xA7CE: return 0xA7CF;
    case 0xA7D2: return 0xA7D3;
    case 0xA7D4: return 0xA7D5;
    case 0xA7DA: return 0xA7DB;
    case 0xA7DC: return 0x019B;
    default: return 0;
  }
}

// clean_text: removed are NUL, U+FFFD and Cc, Cf, Co, Cs other than tab, newline and return.
bool bert_removes(char32_t cp) {
  if (cp == 0 || cp == 0xFFFD) return true;
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  const UCharCategory c = category_of_unicode_8(cp);
  return c == U_CONTROL_CHAR || c == U_FORMAT_CHAR || c == U_PRIVATE_USE_CHAR || c == U_SURROGATE;
}

}  // namespace

bool is_cjk_ideograph(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

Result<std::string> bert_normalize(std::string_view text, const BertNormalizerOptions& options) {
  std::string s;
  s.reserve(text.size());
  for (const std::string& c : utf8_characters(text)) {
    const char32_t cp = utf8_code_point(c);
    if (options.clean_text && bert_removes(cp)) continue;
    if (options.clean_text && is_white_space(cp)) s += ' ';
    else if (options.handle_chinese_chars && is_cjk_ideograph(cp)) s += " " + c + " ";
    else s += c;
  }
  if (options.strip_accents) {
    auto decomposed = bert_nfd(s);
    if (!decomposed) return Error{decomposed.error()};
    s.clear();
    for (const std::string& c : utf8_characters(*decomposed))
      if (category_of_unicode_8(utf8_code_point(c)) != U_NON_SPACING_MARK) s += c;
  }
  return options.lowercase ? lowercase(s) : s;
}

Result<std::string> normalize_unicode(std::string_view text, NormalForm form) {
  if (text.size() > (1u << 30)) return Error{"the text is too long to normalize"};
  UErrorCode error = U_ZERO_ERROR;
  const UNormalizer2* n = form == NormalForm::Nfc    ? unorm2_getNFCInstance(&error)
                          : form == NormalForm::Nfd  ? unorm2_getNFDInstance(&error)
                          : form == NormalForm::Nfkc ? unorm2_getNFKCInstance(&error)
                                                     : unorm2_getNFKDInstance(&error);
  if (U_FAILURE(error)) return Error{std::string("ICU's normalizer is not available: ") + u_errorName(error)};
  auto source = to_utf16(text);
  if (!source) return Error{source.error()};
  // NFKD can grow a character up to 18 times; ICU says how much room it needs when short of it.
  std::u16string out(source->size() * 3 + 16, u'\0');
  for (int attempt = 0; attempt < 2; ++attempt) {
    error = U_ZERO_ERROR;
    const int32_t length = unorm2_normalize(n, source->data(), static_cast<int32_t>(source->size()), out.data(),
                                            static_cast<int32_t>(out.size()), &error);
    if (error == U_BUFFER_OVERFLOW_ERROR) {
      out.assign(static_cast<std::size_t>(length), u'\0');
      continue;
    }
    if (U_FAILURE(error)) return Error{std::string("cannot normalize the text: ") + u_errorName(error)};
    out.resize(static_cast<std::size_t>(length));
    return to_utf8(out);
  }
  return Error{"cannot normalize the text"};
}

// Character by character, as tokenizers' Lowercase does (Rust's char::to_lowercase): the full
// mapping without context, so İ becomes i̇ and a final Σ stays σ.
std::string lowercase(std::string_view text) {
  std::string out;
  for (const std::string& c : utf8_characters(text)) {
    auto source = to_utf16(c);
    if (!source) return std::string(text);
    char16_t lower[16];
    UErrorCode error = U_ZERO_ERROR;
    const int32_t length = u_strToLower(lower, 16, source->data(), static_cast<int32_t>(source->size()), "", &error);
    std::string lowered = U_FAILURE(error) ? c : to_utf8(std::u16string(lower, static_cast<std::size_t>(length)));
    if (lowered == c)
      if (const char32_t newer = newer_lowercase(utf8_code_point(c)); newer != 0) lowered = utf8_encode(newer);
    out += lowered;
  }
  return out;
}

Result<Normalizer> Normalizer::parse(const json& config, const std::string& name) {
  Normalizer n;
  n.name_ = name;
  if (config.is_null()) return n;
  if (auto s = n.add(config, 0); !s) return Error{s.error()};
  return n;
}

// One normalizer (a Sequence adds its members, flattened, in order).
Status Normalizer::add(const json& config, int depth) {
  if (depth > 16) return Error{name_ + ": normalizers nested too deep"};
  const std::string type = config.at("type").get<std::string>();
  const std::string what = name_ + ": normalizer " + type;
  Step step;
  if (type == "Sequence") {
    for (const json& member : config.at("normalizers"))
      if (auto s = add(member, depth + 1); !s) return s;
    return Ok{};
  } else if (type == "Prepend") {
    step.kind = Kind::Prepend;
    step.text = config.at("prepend").get<std::string>();
  } else if (type == "Replace") {
    step.kind = Kind::Replace;
    step.text = config.at("content").get<std::string>();
    auto pattern = TextPattern::parse(config.at("pattern"), what);
    if (!pattern) return Error{pattern.error()};
    step.pattern = std::move(*pattern);
  } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
    step.kind = type == "NFC" ? Kind::Nfc : type == "NFD" ? Kind::Nfd : type == "NFKC" ? Kind::Nfkc : Kind::Nfkd;
  } else if (type == "Lowercase") {
    step.kind = Kind::Lowercase;
  } else if (type == "Strip" || type == "StripAccents") {
    step.kind = type == "Strip" ? Kind::Strip : Kind::StripAccents;
    step.left = config.value("strip_left", true);
    step.right = config.value("strip_right", true);
    // Strip: runs of white space at either end (strip_white_space); StripAccents: combining marks,
    // wherever they are.
    if (type == "StripAccents") {
      auto pattern = TextPattern::regex(R"(\p{M})", what);
      if (!pattern) return Error{pattern.error()};
      step.pattern = std::move(*pattern);
    }
    if (!step.left && !step.right && type == "Strip") return Ok{};  // strips nothing
  } else if (type == "BertNormalizer") {
    return add_bert(config);
  } else if (type == "Precompiled") {
    return add_precompiled(config, what);
  } else {
    return Error{what + " is not supported (Sequence, Prepend, Replace, NFC, NFD, NFKC, NFKD, Lowercase, Strip, "
                        "StripAccents, BertNormalizer, Precompiled)"};
  }
  step.type = type;
  steps_.push_back(std::move(step));
  return Ok{};
}

Status Normalizer::add_bert(const json& config) {
  Step step;
  step.kind = Kind::Bert;
  step.type = "BertNormalizer";
  step.bert.clean_text = config.value("clean_text", true);
  step.bert.handle_chinese_chars = config.value("handle_chinese_chars", true);
  step.bert.lowercase = config.value("lowercase", true);
  const json strip = config.value("strip_accents", json());
  step.bert.strip_accents = strip.is_null() ? step.bert.lowercase : strip.get<bool>();
  steps_.push_back(std::move(step));
  return Ok{};
}

// The charsmap is decoded and checked once, here; null or "" is SentencePiece's identity rule, a
// missing one an error (as tokenizers refuses it).
Status Normalizer::add_precompiled(const json& config, const std::string& what) {
  if (!config.contains("precompiled_charsmap")) return Error{what + " has no precompiled_charsmap"};
  const json& blob = config["precompiled_charsmap"];
  if (!blob.is_null() && !blob.is_string()) return Error{what + ": precompiled_charsmap must be a base64 string"};
  auto charsmap = PrecompiledCharsmap::parse(blob.is_string() ? blob.get<std::string>() : std::string(), what);
  if (!charsmap) return Error{charsmap.error()};
  Step step;
  step.kind = Kind::Precompiled;
  step.type = "Precompiled";
  step.charsmap = std::make_shared<const PrecompiledCharsmap>(std::move(*charsmap));
  steps_.push_back(std::move(step));
  return Ok{};
}

std::string Normalizer::describe() const {
  std::string s;
  for (const Step& step : steps_) s += (s.empty() ? "" : ", ") + step.type;
  return s;
}

namespace {

// The white space Strip removes from either end (Rust's char::is_whitespace), found by walking in
// from the ends: a regex anchored at the end would try every start inside a long run of spaces.
std::string_view strip_white_space(std::string_view s, bool left, bool right) {
  if (left)
    while (!s.empty()) {
      const std::size_t n = std::min(utf8_sequence_length(static_cast<unsigned char>(s[0])), s.size());
      if (!is_white_space(utf8_code_point(s.substr(0, n)))) break;
      s.remove_prefix(n);
    }
  if (right)
    while (!s.empty()) {
      std::size_t at = s.size() - 1;
      while (at > 0 && is_utf8_continuation(static_cast<unsigned char>(s[at]))) --at;
      if (!is_white_space(utf8_code_point(s.substr(at)))) break;
      s.remove_suffix(s.size() - at);
    }
  return s;
}

}  // namespace

std::size_t Normalizer::output_limit(std::size_t input) {
  return kGrowthLimit * input + kGrowthSlack;
}

Status Normalizer::check_size(const Step& step, double size, std::size_t input, std::size_t limit) const {
  if (size <= static_cast<double>(limit)) return Ok{};
  return Error{name_ + ": normalizer " + step.type + " would make " + std::to_string(static_cast<unsigned long long>(size)) +
               " bytes of text from " + std::to_string(input) + ", more than " + std::to_string(kGrowthLimit) +
               " times the text (no real normalizer grows text that much)"};
}

Result<std::string> Normalizer::apply(std::string_view text) const {
  std::string s(text);
  const std::size_t limit = output_limit(text.size());
  for (const Step& step : steps_) {
    switch (step.kind) {
      case Kind::Prepend:
        if (auto fits = check_size(step, static_cast<double>(s.size() + step.text.size()), text.size(), limit); !fits) return Error{fits.error()};
        if (!s.empty()) s = step.text + s;  // tokenizers prepends to non-empty text only
        break;
      case Kind::Strip: {
        const std::string_view kept = strip_white_space(s, step.left, step.right);
        add_tokenizer_work(s.size() - kept.size() + 1);  // the white space walked over
        s = std::string(kept);
        break;
      }
      case Kind::Replace:
      case Kind::StripAccents: {
        std::vector<std::pair<std::size_t, std::size_t>> matches;
        if (auto found = step.pattern.find_all(s, matches); !found) return Error{found.error()};
        // The result's size is known from the matches before it is built: a Replace that turns
        // "a" into a thousand of them, three times over, is refused instead of taking gigabytes.
        const std::string& content = step.kind == Kind::Replace ? step.text : std::string();
        double size = static_cast<double>(s.size());
        for (const auto& [begin, end] : matches) size += static_cast<double>(content.size()) - static_cast<double>(end - begin);
        if (auto fits = check_size(step, size, text.size(), limit); !fits) return Error{fits.error()};
        s = replace_matches(s, matches, content);
        break;
      }
      case Kind::Lowercase:
        s = lowercase(s);
        break;
      case Kind::Bert: {
        auto normalized = bert_normalize(s, step.bert);
        if (!normalized) return Error{name_ + ": " + normalized.error()};
        s = std::move(*normalized);
        break;
      }
      case Kind::Precompiled: {
        auto normalized = step.charsmap->normalize(s, limit);
        if (!normalized) return Error{check_size(step, static_cast<double>(limit) + 1, text.size(), limit).error()};
        s = std::move(*normalized);
        break;
      }
      default: {
        const NormalForm form = step.kind == Kind::Nfc ? NormalForm::Nfc : step.kind == Kind::Nfd ? NormalForm::Nfd
                                : step.kind == Kind::Nfkc ? NormalForm::Nfkc : NormalForm::Nfkd;
        auto normalized = normalize_unicode(s, form);
        if (!normalized) return Error{name_ + ": " + normalized.error()};
        s = std::move(*normalized);
      }
    }
    // The steps whose growth is a small constant (normal forms: at most 18 characters for one;
    // Bert: two spaces around an ideograph) are checked after they ran.
    if (auto fits = check_size(step, static_cast<double>(s.size()), text.size(), limit); !fits) return Error{fits.error()};
  }
  return s;
}

}  // namespace poslab

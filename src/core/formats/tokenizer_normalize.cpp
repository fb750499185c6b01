#include "core/formats/tokenizer_normalize.hpp"

#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include <nlohmann/json.hpp>

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

}  // namespace

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
    out += U_FAILURE(error) ? c : to_utf8(std::u16string(lower, static_cast<std::size_t>(length)));
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
    // Strip: runs of white space at either end; StripAccents: combining marks, wherever they are.
    const std::string ws = kWhiteSpaceClass;
    auto pattern = TextPattern::regex(type == "StripAccents" ? std::string(R"(\p{M})")
                                      : step.left && step.right ? "\\A" + ws + "+|" + ws + "+\\z"
                                      : step.left               ? "\\A" + ws + "+"
                                                                : ws + "+\\z",
                                      what);
    if (!pattern) return Error{pattern.error()};
    step.pattern = std::move(*pattern);
    if (!step.left && !step.right && type == "Strip") return Ok{};  // strips nothing
  } else {
    return Error{what + " is not supported (Sequence, Prepend, Replace, NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents)"};
  }
  step.type = type;
  steps_.push_back(std::move(step));
  return Ok{};
}

std::string Normalizer::describe() const {
  std::string s;
  for (const Step& step : steps_) s += (s.empty() ? "" : ", ") + step.type;
  return s;
}

Result<std::string> Normalizer::apply(std::string_view text) const {
  std::string s(text);
  for (const Step& step : steps_) {
    switch (step.kind) {
      case Kind::Prepend:
        if (!s.empty()) s = step.text + s;  // tokenizers prepends to non-empty text only
        break;
      case Kind::Replace:
      case Kind::Strip:
      case Kind::StripAccents: {
        auto replaced = replace_all(step.pattern, s, step.kind == Kind::Replace ? step.text : std::string());
        if (!replaced) return Error{replaced.error()};
        s = std::move(*replaced);
        break;
      }
      case Kind::Lowercase:
        s = lowercase(s);
        break;
      default: {
        const NormalForm form = step.kind == Kind::Nfc ? NormalForm::Nfc : step.kind == Kind::Nfd ? NormalForm::Nfd
                                : step.kind == Kind::Nfkc ? NormalForm::Nfkc : NormalForm::Nfkd;
        auto normalized = normalize_unicode(s, form);
        if (!normalized) return Error{name_ + ": " + normalized.error()};
        s = std::move(*normalized);
      }
    }
  }
  return s;
}

}  // namespace poslab

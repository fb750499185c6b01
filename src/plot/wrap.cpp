#include "plot/wrap.hpp"

#include <algorithm>

#include "base/text.hpp"

namespace poslab::plot {

namespace {

// CJK characters and full-width punctuation may be broken around (3-byte UTF-8 from U+3000 up).
bool breakable_anywhere(const std::string& ch) {
  if (ch.size() != 3) return false;
  const auto b0 = static_cast<unsigned char>(ch[0]);
  return b0 >= 0xE3 && b0 <= 0xEF;
}

// Characters that must not start a line (Japanese kinsoku: closing punctuation).
bool no_line_start(const std::string& ch) {
  for (const char* c : {"、", "。", "」", "）", "・", "ー", "ぁ", "ぃ", "ぅ", "ぇ", "ぉ", "っ", "ゃ", "ゅ", "ょ", "ッ", "ャ", "ュ", "ョ", "：", ")", ",", ".", ":"})
    if (ch == c) return true;
  return false;
}

}  // namespace

std::vector<std::string> wrap_text(const std::string& text, float width, float size, const TextMeasure& measure) {
  // Cut into pieces that stay together: a Latin word with its trailing space, or one CJK char.
  std::vector<std::string> pieces;
  std::string word;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = std::min(utf8_sequence_length(static_cast<unsigned char>(text[i])), text.size() - i);
    const std::string ch = text.substr(i, n);
    i += n;
    if (breakable_anywhere(ch)) {  // a piece of its own; the glue below handles 、。」
      if (!word.empty()) pieces.push_back(std::move(word));
      word.clear();
      pieces.push_back(ch);
      continue;
    }
    word += ch;
    if (ch == " ") {
      pieces.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) pieces.push_back(std::move(word));
  // Keep closing punctuation with the piece before it.
  std::vector<std::string> glued;
  for (std::string& p : pieces) {
    const std::size_t n = utf8_sequence_length(static_cast<unsigned char>(p[0]));
    if (!glued.empty() && no_line_start(p.substr(0, n)) && glued.back().back() != ' ') glued.back() += p;
    else glued.push_back(std::move(p));
  }
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& p : glued) {
    std::string candidate = line + p;
    std::string trimmed = candidate;
    while (!trimmed.empty() && trimmed.back() == ' ') trimmed.pop_back();
    if (!line.empty() && measure.width(trimmed, size) > width) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      lines.push_back(line);
      line = p;
    } else {
      line = std::move(candidate);
    }
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace poslab::plot

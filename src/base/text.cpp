#include "base/text.hpp"

#include <algorithm>

namespace poslab {

std::size_t utf8_sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

std::vector<std::string_view> split_blank_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> items;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(separator, at), text.size());
    items.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  return items;
}

}  // namespace poslab

#pragma once
// Cutting text into pieces, as every layer that reads text does: UTF-8 characters (the tokenizer,
// the figures' labels and line breaks), blank-separated fields (the embedding readers) and
// comma-separated lists (the command line's lists of lengths, folders and revisions).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace poslab {

// The length of the UTF-8 sequence a lead byte starts (1 for a stray continuation byte or a byte
// that starts no sequence, so that a walk over broken text moves on by one).
std::size_t utf8_sequence_length(unsigned char lead);

// Whether `byte` continues a UTF-8 sequence (10xxxxxx) rather than starting a character.
constexpr bool is_utf8_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The blanks between a text line's fields: space, tab and the carriage return of a CRLF line end.
constexpr bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The fields of a line separated by blanks (runs of them count once; no field is empty).
std::vector<std::string_view> split_blank_fields(std::string_view line);

// The items of a list separated by `separator`, as std::getline reads them: an empty item between
// two separators is kept, none after a last separator, and an empty text has no item.
std::vector<std::string> split_list(std::string_view text, char separator);

}  // namespace poslab

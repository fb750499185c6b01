#pragma once
// The two pieces every CSV writer shares (core's results, the figures' tables, the training log),
// and the reader of what they write (the training log and tables read back, the tests).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace poslab {

// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

// The fields of the CSV record that starts at `at` in `text`, each read back as csv_field writes
// it (a quoted field's doubled quotes as one, its commas and line breaks its own); `at` moves past
// the record's line break. A carriage return outside quotes is dropped, as a CRLF file has them.
std::vector<std::string> read_csv_record(std::string_view text, std::size_t& at);

// The fields of one line of CSV ("a," is two fields, the second empty).
std::vector<std::string> csv_line_fields(std::string_view line);

// Shortest decimal text that reads back as the same float.
std::string format_float(float v);

}  // namespace poslab

#pragma once
// The one CSV reader of the C++ tests: a header's names and rows of fields, each field read back
// by base/csv.hpp's reader as its csv_field writes it (in quotes when it holds a comma, a quote or
// a line break), so that a token such as "," is one field, not two.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "base/csv.hpp"
#include "shell.hpp"

namespace poslab::test_support {

// The fields joined by commas again, unquoted: a row as a failed test's message shows it.
inline std::string csv_row_text(const std::vector<std::string>& fields) {
  std::string text;
  for (std::size_t i = 0; i < fields.size(); ++i) text += (i ? "," : "") + fields[i];
  return text;
}

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  // The index of the column named `name`: a failed test, and the header's size, where there is none.
  std::size_t column(std::string_view name) const {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << "no column " << name;
    return static_cast<std::size_t>(it - header.begin());
  }
};

// Every record of a CSV text, the header first (the last line break ends the last record; it
// starts no empty one).
inline std::vector<std::vector<std::string>> csv_records(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  for (std::size_t at = 0; at < text.size();) records.push_back(read_csv_record(text, at));
  return records;
}

// A CSV text as its header and its rows.
inline CsvTable parse_csv(std::string_view text) {
  auto records = csv_records(text);
  CsvTable table;
  if (records.empty()) return table;
  table.header = std::move(records.front());
  table.rows.assign(std::make_move_iterator(records.begin() + 1), std::make_move_iterator(records.end()));
  return table;
}

inline CsvTable read_csv_file(const std::filesystem::path& p) { return parse_csv(read_whole_file(p)); }

}  // namespace poslab::test_support

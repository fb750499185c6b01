#pragma once
// What the app tests share: running poslab, temporary folders, reading PNGs and CSVs, and the
// core's own numbers to check an exported CSV against.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

#include "core/workspace.hpp"
#include "figures/assets.hpp"
#include "figures/export.hpp"
#include "plot/render.hpp"
#include "csv_reader.hpp"
#include "poslab_process.hpp"
#include "temp_folder.hpp"

namespace poslab::app_test {

namespace fs = std::filesystem;

using test_support::RunResult;
using test_support::CsvTable;
using test_support::TempFolder;

// The names of the views Export all views writes, read from the view registry (a new view is
// tested by its row alone).
inline std::vector<std::string> explorer_view_names() {
  std::vector<std::string> names;
  for (ViewId view : all_views()) names.emplace_back(to_string(view));
  return names;
}

inline RunResult run(const std::string& args, const std::string& env = "") { return test_support::run_poslab(args, env); }


inline std::string read_file(const fs::path& p) { return test_support::read_whole_file(p); }

inline plot::RgbaImage read_png(const fs::path& p) { return test_support::read_png_file(p); }

inline std::size_t distinct_colors(const plot::RgbaImage& img) {
  std::set<std::uint32_t> colors;
  for (std::size_t i = 0; i + 3 < img.rgba.size(); i += 4) {
    std::uint32_t c = 0;
    std::memcpy(&c, img.rgba.data() + i, 4);
    colors.insert(c);
  }
  return colors.size();
}

// Parses the tidy attention CSV into (head, query, key) → (score, weight).
inline std::map<std::array<int, 3>, std::pair<float, float>> parse_attention_csv(const std::string& text) {
  std::map<std::array<int, 3>, std::pair<float, float>> cells;
  const CsvTable csv = test_support::parse_csv(text);
  EXPECT_EQ(csv.header, csv_line_fields("head,query,key,query_token,key_token,score,weight"));
  for (const auto& f : csv.rows) {
    EXPECT_EQ(f.size(), 7u) << test_support::csv_row_text(f);
    if (f.size() != 7) continue;
    cells[{std::stoi(f[0]), std::stoi(f[1]), std::stoi(f[2])}] = {std::stof(f[5]), std::stof(f[6])};
  }
  return cells;
}

inline Results core_results(const State& state) {
  Workspace w;
  EXPECT_TRUE(w.load_embeddings(asset_path(kDefaultEmbeddingsFile)).ok());
  State cpu = state;
  cpu.backend = Backend::Cpu;
  EXPECT_TRUE(w.update(cpu).ok());
  return *w.results();
}

inline void expect_csv_matches_core(const std::string& csv, const State& state, float tolerance) {
  const Results r = core_results(state);
  const auto cells = parse_attention_csv(csv);
  const int T = static_cast<int>(r.tokens.size());
  ASSERT_EQ(cells.size(), static_cast<std::size_t>(r.problem.heads * T * T));
  for (int h = 0; h < r.problem.heads; ++h)
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) {
        const auto& [score, weight] = cells.at({h, i, j});
        const float s = r.attention.scores[static_cast<std::size_t>(h)](i, j);
        if (std::isinf(s)) EXPECT_TRUE(std::isinf(score) && score < 0);
        else EXPECT_NEAR(score, s, tolerance);
        EXPECT_NEAR(weight, r.attention.weights[static_cast<std::size_t>(h)](i, j), tolerance);
      }
}

}  // namespace poslab::app_test

// M-RoPE's layout, against values worked out by hand from Qwen2-VL's sections (the cos/sin chunks
// taken from t, h, w in turn), Qwen3-VL's apply_interleaved_mrope (pairs 1, 4, 7 … from h and
// 2, 5, 8 … from w, each below 3 × its count) and get_rope_index.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/encodings/mrope.hpp"

namespace poslab {
namespace {

std::string letters(const std::vector<MropeAxis>& axes) {
  std::string s;
  for (MropeAxis a : axes) s += a == MropeAxis::T ? 't' : a == MropeAxis::H ? 'h' : 'w';
  return s;
}

TEST(Mrope, SectionsAndInterleavedPairs) {
  EXPECT_EQ(letters(mrope_pair_axes({2, 3, 3}, false)), "tthhhwww");
  EXPECT_EQ(letters(mrope_pair_axes({4, 2, 2}, true)), "thwthwtt");
  // Qwen3-VL's real sections (24, 20, 20) over 64 pairs: h and w alternate up to pair 59, then t.
  const std::string q3 = letters(mrope_pair_axes({24, 20, 20}, true));
  ASSERT_EQ(q3.size(), 64u);
  EXPECT_EQ(q3.substr(0, 6), "thwthw");
  EXPECT_EQ(q3.substr(57), "thwtttt");
  EXPECT_EQ(std::count(q3.begin(), q3.end(), 'h'), 20);
  EXPECT_EQ(std::count(q3.begin(), q3.end(), 'w'), 20);
}

TEST(Mrope, PositionIdsAsGetRopeIndexAssignsThem) {
  auto layout = parse_mrope_layout("text:2,image:4x6,text:1", 2);
  ASSERT_TRUE(layout) << layout.error();
  const auto ids = mrope_position_ids(*layout, 2);
  ASSERT_EQ(ids.size(), 9u);  // 2 + (4/2)·(6/2) + 1
  const int expected[9][3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {2, 2, 3}, {2, 2, 4}, {2, 3, 2}, {2, 3, 3}, {2, 3, 4}, {5, 5, 5}};
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(ids[static_cast<std::size_t>(i)].t, expected[i][0]) << i;
    EXPECT_EQ(ids[static_cast<std::size_t>(i)].h, expected[i][1]) << i;
    EXPECT_EQ(ids[static_cast<std::size_t>(i)].w, expected[i][2]) << i;
  }
  // Text alone: the three ids equal, counting 0, 1, 2 … (so M-RoPE is 1-D RoPE on text).
  auto text = parse_mrope_layout("text:4", 2);
  ASSERT_TRUE(text);
  for (const MropeToken& t : mrope_position_ids(*text, 2)) EXPECT_TRUE(t.t == t.h && t.h == t.w);
}

TEST(Mrope, BadLayoutsAreRefusedSayingWhy) {
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"", "empty"}, {"text:0", "from 1 to 4096"}, {"image:3x4", "multiple of the spatial merge 2"},
           {"audio:5", "is not text:N or image:HxW"}, {"text:5,image:4", "patch columns"}}) {
    auto r = parse_mrope_layout(text, 2);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().find(message), std::string::npos) << r.error();
  }
  std::string long_layout = "text:4096";
  for (int i = 0; i < 16; ++i) long_layout += ",text:4096";
  auto r = parse_mrope_layout(long_layout, 2);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("more than 65536"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace poslab

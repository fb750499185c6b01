// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// CSV output and atomic file writing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/export_data.hpp"
#include "core/options.hpp"
#include "base/random.hpp"
#include "csv_reader.hpp"
#include "temp_folder.hpp"

using namespace poslab;
namespace fs = std::filesystem;

using poslab::test_support::TempFolder;

TEST(Csv, FieldsAreQuotedOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("dog"), "dog");
  EXPECT_EQ(csv_field(","), "\",\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

// The tests' one reader (tests/csv_reader.hpp) reads back every field as the writer quotes it:
// commas, doubled quotes and line breaks inside quotes, and empty fields.
TEST(Csv, TheTestsReaderReadsBackWhatTheWriterQuotes) {
  const std::vector<std::string> fields = {"dog", ",", "say \"hi\"", "two\nlines", "", "last"};
  std::string line;
  for (const std::string& f : fields) line += (line.empty() ? "" : ",") + csv_field(f);
  const auto table = poslab::test_support::parse_csv("a,b,c,d,e,f\n" + line + "\n" + line + ",\n");
  EXPECT_EQ(table.header, poslab::csv_line_fields("a,b,c,d,e,f"));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0], fields);
  EXPECT_EQ(table.rows[1].size(), fields.size() + 1) << "a trailing comma is an empty last field";
  EXPECT_EQ(table.column("e"), 4u);
}

TEST(Csv, FloatsRoundTrip) {
  for (float v : {0.1f, 1.0f / 3.0f, -2.5e-8f, 12345.678f}) EXPECT_EQ(std::stof(format_float(v)), v);
  EXPECT_EQ(format_float(-std::numeric_limits<float>::infinity()), "-inf");
}

TEST(Csv, AttentionIsTidyWithOneRowPerCell) {
  Results r;
  r.tokens = {Token{"a", 0}, Token{",", 1}};
  r.key_tokens = r.tokens;
  r.attention.scores = {Matrix::Constant(2, 2, 0.5f), Matrix::Constant(2, 2, 0.25f)};
  r.attention.scores[0](0, 1) = -std::numeric_limits<float>::infinity();
  r.attention.weights = {Matrix::Constant(2, 2, 0.5f), Matrix::Constant(2, 2, 0.5f)};
  r.attention.weights[0](0, 0) = 1.0f;
  r.attention.weights[0](0, 1) = 0.0f;
  std::ostringstream out;
  write_attention_csv(out, r);
  const std::string csv = out.str();
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "head,query,key,query_token,key_token,score,weight");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 2 * 2);
  EXPECT_NE(csv.find("0,0,1,a,\",\",-inf,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("1,1,1,\",\",\",\",0.25,0.5\n"), std::string::npos) << csv;
}

TEST(AtomicWrite, WritesAndReplaces) {
  const TempFolder dir("export");
  const fs::path file = dir / "out.txt";
  ASSERT_TRUE(write_file_atomic(file, "first").ok());
  ASSERT_TRUE(write_file_atomic(file, "second").ok());
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "second");
  for (const auto& entry : fs::directory_iterator(file.parent_path()))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << "temporary file left behind";
}

TEST(AtomicWrite, BadPathsAreClearErrorsAndChangeNothing) {
  auto s = write_file_atomic("/no/such/folder/out.png", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("does not exist"), std::string::npos) << s.error();
  const TempFolder dir("export");
  s = write_file_atomic(dir, "x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("is a folder"), std::string::npos) << s.error();
}

TEST(Options, ParseValuesAndRejectBadOnes) {
  State s;
  ASSERT_TRUE(find_state_option("--heads")->apply(s, "4").ok());
  EXPECT_EQ(s.model.heads, 4);
  ASSERT_TRUE(find_state_option("--encoding")->apply(s, "sinusoidal").ok());
  EXPECT_EQ(s.model.encoding, EncodingKind::Sinusoidal);
  ASSERT_TRUE(find_state_option("--rope-style")->apply(s, "half").ok());
  EXPECT_EQ(s.model.rope_style, RopeStyle::Half);
  auto bad = find_state_option("--encoding")->apply(s, "alibi");  // ALiBi is a bias, not an encoding
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("none|integer|normalized|binary|sinusoidal|learned|rope"), std::string::npos) << bad.error();
  EXPECT_FALSE(find_state_option("--heads")->apply(s, "four").ok());
  EXPECT_FALSE(find_state_option("--heads")->apply(s, "0").ok());
  EXPECT_FALSE(find_state_option("--base")->apply(s, "1e").ok());
  EXPECT_EQ(s.model.heads, 4);  // failed parses change nothing
  EXPECT_EQ(find_state_option("--bogus"), nullptr);
}

// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// Byte-level BPE on a small tokenizer.json written here, so every id can be derived by hand.
#include <gtest/gtest.h>

#include "tokenizer/tokenizer.hpp"
#include "tokenizer/tokenizer_added.hpp"
#include "tokenizer/tokenizer_model.hpp"
#include "tiny_tokenizer.hpp"

using namespace poslab;

namespace {

std::vector<int> ids(const BpeTokenizer& t, std::string_view text) {
  auto r = t.encode(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
  return r.ok() ? *r : std::vector<int>{};
}

}  // namespace

TEST(Bpe, MergesByRankAfterTheByteLevelMap) {
  auto t = BpeTokenizer::parse(tokenizer_json(false, false), "", "test");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(ids(*t, "dog dog"), (std::vector<int>{8, 9}));  // "dog", "Ġdog"
  EXPECT_EQ(ids(*t, "cat"), (std::vector<int>{10, 6}));     // "ca" + "t": no merge makes "cat"
  EXPECT_EQ(ids(*t, "1"), (std::vector<int>{11}));
  EXPECT_EQ(t->token_text(9), " dog");  // Ġ decodes back to the space byte
}

TEST(Bpe, IgnoreMergesTakesAWholeWordFromTheVocabulary) {
  auto t = BpeTokenizer::parse(tokenizer_json(true, false), "", "test");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(ids(*t, "cat"), (std::vector<int>{12}));  // "cat" is in the vocabulary
}

TEST(Bpe, AddedTokensAreNeverSplitAndTheTemplateAddsBos) {
  auto t = BpeTokenizer::parse(tokenizer_json(false, true), "", "test");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(ids(*t, "dog<x>dog"), (std::vector<int>{100, 8, 101, 8}));
  EXPECT_TRUE(t->is_special(101));
  // Without a template, tokenizer_config.json's bos_token is put first unless add_bos_token is false.
  auto config = BpeTokenizer::parse(tokenizer_json(false, false), R"({"bos_token": "<s>"})", "test");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(ids(*config, "dog"), (std::vector<int>{100, 8}));
  auto off = BpeTokenizer::parse(tokenizer_json(false, false), R"({"bos_token": "<s>", "add_bos_token": false})", "test");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(ids(*off, "dog"), (std::vector<int>{8}));
}

TEST(Bpe, BadFilesAreClearErrors) {
  EXPECT_FALSE(BpeTokenizer::parse("{", "", "t.json").ok());
  auto word_level = BpeTokenizer::parse(R"({"model": {"type": "WordLevel", "vocab": {}}})", "", "t.json");
  ASSERT_FALSE(word_level.ok());
  EXPECT_NE(word_level.error().find("model type WordLevel is not supported (BPE, WordPiece, Unigram)"), std::string::npos)
      << word_level.error();
  std::string bad_regex = tokenizer_json(false, false);
  bad_regex.replace(bad_regex.find(" ?\\\\p{L}+"), 9, "(unclosed");
  auto r = BpeTokenizer::parse(bad_regex, "", "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("regex"), std::string::npos) << r.error();
  EXPECT_FALSE(BpeTokenizer::load("/no/such/tokenizer.json").ok());
  // Found by the fuzzer: a float where an id belongs is an error, not a conversion.
  std::string float_id = tokenizer_json(false, false);
  float_id.replace(float_id.find("\"d\": 0"), 6, "\"d\": 3.3e86");
  auto f = BpeTokenizer::parse(float_id, "", "t.json");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().find("whole number"), std::string::npos) << f.error();
}

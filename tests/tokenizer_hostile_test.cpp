// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// Hostile tokenizer.json files and texts (issue 36): a normalizer may not multiply text, the work
// grows linearly in the text (counted by tokenizer_work(), not timed), what Hugging Face's
// tokenizers refuses is refused, and no message stops at a NUL byte. The tokenizer's own tests:
// they read its steps' work counter, private to src/tokenizer.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "tiny_tokenizer.hpp"
#include "tokenizer/tokenizer.hpp"
#include "tokenizer/tokenizer_text.hpp"

using namespace poslab;
using json = nlohmann::json;

namespace {

json tiny() { return json::parse(tokenizer_json(false, false)); }

Result<std::vector<int>> encode_with(const json& tokenizer, const std::string& text, std::vector<std::string>* unknown = nullptr) {
  auto t = BpeTokenizer::parse(tokenizer.dump(), "", "t.json");
  if (!t) return Error{t.error()};
  return t->encode(text, unknown);
}

}  // namespace

TEST(HostileTokenizer, ANormalizerThatMultipliesTextIsRefusedByName) {
  // Three Replace steps, each "a" → a thousand of them: a 4-byte sentence would become 4 GB.
  json tokenizer = tiny();
  const json replace = {{"type", "Replace"}, {"pattern", {{"String", "a"}}}, {"content", std::string(1000, 'a')}};
  tokenizer["normalizer"] = {{"type", "Sequence"}, {"normalizers", {replace, replace, replace}}};
  const auto ids = encode_with(tokenizer, "aaaa");
  ASSERT_FALSE(ids.ok());
  EXPECT_NE(ids.error().find("normalizer Replace would make"), std::string::npos) << ids.error();
  // One such step on a short sentence is within the bound, as a real normalizer always is.
  tokenizer["normalizer"] = replace;
  EXPECT_TRUE(encode_with(tokenizer, "a").ok());
  // A long Prepend is applied to every piece between added tokens: bounded for the sentence as a whole.
  tokenizer["normalizer"] = {{"type", "Prepend"}, {"prepend", std::string(3000, 'c')}};
  std::string pieces;
  for (int k = 0; k < 1000; ++k) pieces += "a<x>";
  const auto prepended = encode_with(tokenizer, pieces);
  ASSERT_FALSE(prepended.ok());
  EXPECT_NE(prepended.error().find("the normalizer Prepend would make more than 32 times the text"), std::string::npos)
      << prepended.error();
}

namespace {

// The tokenizer's counted work for `unit` repeated `n` times.
std::uint64_t work_for(const BpeTokenizer& t, const std::string& unit, int n) {
  std::string text;
  for (int k = 0; k < n; ++k) text += unit;
  const std::uint64_t before = tokenizer_work();
  std::vector<std::string> unknown;
  EXPECT_TRUE(t.encode(text, &unknown).ok());
  return tokenizer_work() - before;
}

// Work for 4n units against work for n: 4 when linear, 16 when quadratic.
void expect_linear(const json& tokenizer, const std::string& unit, const std::string& what) {
  auto t = BpeTokenizer::parse(tokenizer.dump(), "", what);
  ASSERT_TRUE(t.ok()) << t.error();
  const std::uint64_t small = work_for(*t, unit, 2000), large = work_for(*t, unit, 8000);
  ASSERT_GT(small, 0u) << what;
  EXPECT_LE(static_cast<double>(large) / static_cast<double>(small), 4.5) << what << ": " << small << " then " << large;
}

json unigram(bool with_unk) {
  json vocab = json::array({json::array({"<unk>", 0.0}), json::array({"\u2581a", -1.0}), json::array({"b", -2.0}),
                            json::array({"ab", -2.5}), json::array({"\u2581", -3.0})});
  return {{"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "always"}, {"split", true}}},
          {"post_processor", nullptr},
          {"added_tokens", json::array()},
          {"model", {{"type", "Unigram"}, {"unk_id", with_unk ? json(0) : json()}, {"vocab", vocab}}}};
}

json wordpiece(const json& vocab, std::size_t max_chars) {
  return {{"normalizer", {{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}}},
          {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
          {"post_processor", nullptr},
          {"added_tokens", json::array()},
          {"model", {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
                     {"max_input_chars_per_word", max_chars}, {"vocab", vocab}}}};
}

}  // namespace

TEST(HostileTokenizer, WorkGrowsLinearlyInTheText) {
  // A regex pre-tokenizer and byte-level BPE (the Llama 3 kind): PCRE2 must not validate the rest
  // of the text at every match.
  expect_linear(tiny(), "the dog, 12 cats! ", "regex and ByteLevel");
  json gpt2 = tiny();
  gpt2["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}};
  expect_linear(gpt2, "dog do g ", "ByteLevel's own regex");
  // Unigram: ordinary words, and one long run of unknown characters fused into one.
  expect_linear(unigram(true), "a ab b ", "Unigram");
  expect_linear(unigram(true), "\u00e9", "Unigram's unknown run");
  // WordPiece: a word as long as the text (max_input_chars_per_word allows it), and white space
  // that Strip walks in from both ends.
  expect_linear(wordpiece({{"[UNK]", 0}, {"a", 1}, {"##a", 2}, {"##aa", 3}}, 1'000'000), "a", "WordPiece's long word");
  expect_linear(wordpiece({{"[UNK]", 0}, {"a", 1}}, 100), " ", "Strip over white space");
  json split = tiny();
  split["pre_tokenizer"] = {{"type", "WhitespaceSplit"}};
  expect_linear(split, "dog cat ", "WhitespaceSplit");
}

TEST(HostileTokenizer, RefusedAsHuggingFaceTokenizersRefusesThem) {
  // CharDelimiterSplit's delimiter is one Rust char: two characters, or none, do not load.
  for (const std::string delimiter : {"ab", ""}) {
    json t = tiny();
    t["pre_tokenizer"] = {{"type", "CharDelimiterSplit"}, {"delimiter", delimiter}};
    const auto ids = encode_with(t, "a");
    ASSERT_FALSE(ids.ok()) << delimiter;
    EXPECT_NE(ids.error().find("the delimiter must be one character"), std::string::npos) << ids.error();
  }
  json one = tiny();
  one["pre_tokenizer"] = {{"type", "CharDelimiterSplit"}, {"delimiter", "\u00e9"}};
  EXPECT_TRUE(encode_with(one, "do\u00e9g").ok());

  // Unigram without unk_id: known text encodes, an unknown character is refused by name.
  EXPECT_TRUE(encode_with(unigram(false), "a ab").ok());
  const auto unknown = encode_with(unigram(false), "a z");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("no piece for \"z\" and no unk_id"), std::string::npos) << unknown.error();

  // WordPiece: an empty vocabulary, and an unk_token the vocabulary lacks when a word needs it.
  const auto empty = encode_with(wordpiece(json::object(), 100), "a");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("the WordPiece vocabulary is empty"), std::string::npos) << empty.error();
  const json no_unk = wordpiece({{"a", 0}}, 100);
  EXPECT_TRUE(encode_with(no_unk, "a a").ok());
  const auto missing = encode_with(no_unk, "a b");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("unk_token [UNK] is not in the vocabulary, and the word \"b\" has no pieces"), std::string::npos)
      << missing.error();
}

TEST(HostileTokenizer, AMessageNeverStopsAtANulByte) {
  json t = tiny();
  t["pre_tokenizer"] = {{"type", std::string("Uni\0codeScripts", 15)}};
  const auto ids = encode_with(t, "a");
  ASSERT_FALSE(ids.ok());
  EXPECT_EQ(std::strlen(ids.error().c_str()), ids.error().size()) << "the message holds a NUL byte";
  EXPECT_NE(ids.error().find("pre-tokenizer Uni\\u0000codeScripts is not supported"), std::string::npos) << ids.error();
}

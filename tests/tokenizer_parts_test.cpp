// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// The tokenizer's parts one by one — normalizers, pre-tokenizers, the BPE model's byte fallback
// and unknown token, the display of tokens — on inputs small enough to derive by hand.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer.hpp"
#include "tokenizer/tokenizer_display.hpp"
#include "tokenizer/tokenizer_normalize.hpp"
#include "tokenizer/tokenizer_post.hpp"
#include "tokenizer/tokenizer_precompiled.hpp"
#include "tokenizer/tokenizer_pretokenize.hpp"

using namespace poslab;
using json = nlohmann::json;

namespace {

std::string normalized(const char* config, std::string_view text) {
  auto n = Normalizer::parse(json::parse(config), "t");
  EXPECT_TRUE(n.ok()) << (n.ok() ? "" : n.error());
  if (!n.ok()) return "";
  auto r = n->apply(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
  return r.ok() ? *r : "";
}

std::vector<std::string> words(const char* config, std::string_view text, bool at_start = true) {
  auto p = PreTokenizer::parse(json::parse(config), "t");
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error());
  std::vector<std::string> out;
  if (p.ok()) EXPECT_TRUE(p->apply(text, at_start, out).ok());
  return out;
}

using Words = std::vector<std::string>;

// A Llama-2-shaped tokenizer: "▁" for spaces (prepended too), byte fallback, <unk>, <s> first.
std::string llama2_like(bool byte_fallback) {
  return R"({"normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
               {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
    "pre_tokenizer": null,
    "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
        {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
    "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
        {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    "added_tokens": [{"id": 0, "content": "<unk>", "special": true}, {"id": 1, "content": "<s>", "special": true}],
    "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": )" +
         std::string(byte_fallback ? "true" : "false") + R"(,
      "vocab": {"<unk>": 0, "<s>": 1, "▁": 2, "a": 3, "b": 4, "▁a": 5, "ab": 6, "▁ab": 7,
                "<0xE2>": 8, "<0x82>": 9, "<0xAC>": 10},
      "merges": ["a b", "▁ ab", "▁ a"]}})";
}

std::vector<int> encode(const std::string& tokenizer_json, std::string_view text) {
  auto t = BpeTokenizer::parse(tokenizer_json, "", "t");
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error());
  if (!t.ok()) return {};
  auto ids = t->encode(text);
  EXPECT_TRUE(ids.ok()) << (ids.ok() ? "" : ids.error());
  return ids.ok() ? *ids : std::vector<int>{};
}

}  // namespace

TEST(TokenizerNormalizer, Llama2PrependsAndReplacesSpaces) {
  const char* llama2 = R"({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                          {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})";
  EXPECT_EQ(normalized(llama2, "Hello  world"), "▁Hello▁▁world");
  EXPECT_EQ(normalized(llama2, ""), "");  // nothing is prepended to nothing
  EXPECT_EQ(normalized(R"({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "})", "a   b c"), "a b c");
}

TEST(TokenizerNormalizer, UnicodeFormsLowercaseAndStrip) {
  EXPECT_EQ(normalized(R"({"type": "NFC"})", "cafe\u0301 \u212B"), "caf\u00e9 \u00c5");
  EXPECT_EQ(normalized(R"({"type": "NFD"})", "\u00e9"), "e\u0301");
  EXPECT_EQ(normalized(R"({"type": "NFKC"})", "\uFB01 \u2460 \uff11\uff12"), "fi 1 12");
  EXPECT_EQ(normalized(R"({"type": "Lowercase"})", "\u00c0B \u0130"), "\u00e0b i\u0307");  // İ → i + dot, as Rust
  EXPECT_EQ(normalized(R"({"type": "Strip", "strip_left": true, "strip_right": true})", " \t x y \u3000"), "x y");
  EXPECT_EQ(normalized(R"({"type": "Strip", "strip_left": false, "strip_right": true})", "  x  "), "  x");
  EXPECT_EQ(normalized(R"({"type": "StripAccents"})", "e\u0301"), "e");
}

TEST(TokenizerNormalizer, AnUnsupportedTypeIsNamed) {
  auto n = Normalizer::parse(json::parse(R"({"type": "Sequence", "normalizers": [{"type": "ByteLevel"}]})"), "t.json");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().find("normalizer ByteLevel is not supported"), std::string::npos) << n.error();
  auto p = Normalizer::parse(json::parse(R"({"type": "Precompiled"})"), "t.json");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("has no precompiled_charsmap"), std::string::npos) << p.error();
}

TEST(TokenizerPreTokenizer, SplitBehaviors) {
  const auto split = [](const char* behavior, bool invert = false) {
    const std::string config = std::string(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": ")") + behavior +
                               R"(", "invert": )" + (invert ? "true" : "false") + "}";
    return words(config.c_str(), "a-b--c");
  };
  EXPECT_EQ(split("Removed"), (Words{"a", "b", "c"}));
  EXPECT_EQ(split("Isolated"), (Words{"a", "-", "b", "-", "-", "c"}));
  EXPECT_EQ(split("MergedWithPrevious"), (Words{"a-", "b-", "-", "c"}));
  EXPECT_EQ(split("MergedWithNext"), (Words{"a", "-b", "-", "-c"}));
  EXPECT_EQ(split("Contiguous"), (Words{"a", "-", "b", "--", "c"}));
  EXPECT_EQ(split("Removed", true), (Words{"-", "-", "-"}));  // inverted: the dashes are the words
  auto bad = PreTokenizer::parse(json::parse(R"({"type": "Split", "pattern": {"String": "-"}, "behavior": "Sideways"})"), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("Sideways"), std::string::npos);
}

TEST(TokenizerPreTokenizer, MetaspaceDigitsPunctuationWhitespace) {
  const char* always = R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true})";
  EXPECT_EQ(words(always, "Hey  friend"), (Words{"▁Hey", "▁", "▁friend"}));
  const char* first = R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false})";
  EXPECT_EQ(words(first, "Hey friend"), (Words{"▁Hey▁friend"}));
  EXPECT_EQ(words(first, "Hey friend", false), (Words{"Hey▁friend"}));  // not where the sentence starts
  // Nor after a split that removed the sentence's first character: that piece begins later.
  const std::string split_first = std::string(R"({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, )") + first + "]}";
  EXPECT_EQ(words(split_first.c_str(), " Hey friend"), (Words{"Hey", "friend"}));
  EXPECT_EQ(words(split_first.c_str(), "Hey friend"), (Words{"▁Hey", "friend"}));
  EXPECT_EQ(words(R"({"type": "Digits", "individual_digits": true})", "ab123"), (Words{"ab", "1", "2", "3"}));
  EXPECT_EQ(words(R"({"type": "Digits", "individual_digits": false})", "ab123c"), (Words{"ab", "123", "c"}));
  EXPECT_EQ(words(R"({"type": "Punctuation"})", "a,b!!"), (Words{"a", ",", "b", "!", "!"}));
  EXPECT_EQ(words(R"({"type": "Whitespace"})", "Hey, you!?"), (Words{"Hey", ",", "you", "!?"}));
  EXPECT_EQ(words(R"({"type": "WhitespaceSplit"})", " a  b\tc\u00a0d "), (Words{"a", "b", "c", "d"}));
  // Oniguruma-style patterns as real tokenizers write them: case-insensitive groups, lookahead.
  const char* llama3 = R"({"type": "Split", "pattern": {"Regex": "(?i:'s|'t)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}|\\s+(?!\\S)|\\s+"},
                          "behavior": "Isolated", "invert": false})";
  EXPECT_EQ(words(llama3, "IT'S 12345  ok"), (Words{"IT", "'S", " ", "123", "45", " ", " ok"}));
}

TEST(TokenizerBpe, ByteFallbackUnknownTokenAndTheTemplate) {
  // € (E2 82 AC) has no token of its own: its bytes' tokens, or one <unk> for a run of them.
  EXPECT_EQ(encode(llama2_like(true), "ab a€"), (std::vector<int>{1, 7, 5, 8, 9, 10}));
  EXPECT_EQ(encode(llama2_like(false), "ab a€€"), (std::vector<int>{1, 7, 5, 0}));
  EXPECT_EQ(encode(llama2_like(true), ""), (std::vector<int>{1}));
  EXPECT_EQ(encode(llama2_like(true), "<s>ab"), (std::vector<int>{1, 1, 7}));  // ▁ prepended after <s> too
}

TEST(TokenizerDisplay, TokensReadAsText) {
  auto t = BpeTokenizer::parse(llama2_like(true), "", "t");
  ASSERT_TRUE(t.ok()) << t.error();
  // ▁ as a space; the three byte tokens of € joined into it on the first; <s> as written.
  EXPECT_EQ(t->token_texts({1, 7, 5, 8, 9, 10}), (Words{"<s>", " ab", " a", "€", "", ""}));
  EXPECT_EQ(t->token_text(8), "<0xE2>");  // alone, the byte forms no character
  // GPT-2's byte-level alphabet: 🐶 (F0 9F 90 B6) split over two tokens.
  const auto& a = byte_level_alphabet();
  const TokenDisplay byte_level(json::parse(R"({"type": "ByteLevel"})"), false, "", false);
  EXPECT_EQ(byte_level.show({a[0x20] + "dog", a[0xF0] + a[0x9F], a[0x90] + a[0xB6]}, {false, false, false}),
            (Words{" dog", "🐶", ""}));
  EXPECT_EQ(byte_level.show({a[0x9F]}, {false}), (Words{"<0x9F>"}));
}

TEST(TokenizerBpe, InvalidUtf8AndBadMergesAreClearErrors) {
  auto t = BpeTokenizer::parse(llama2_like(true), "", "t");
  ASSERT_TRUE(t.ok());
  auto r = t->encode("a\xC3(");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("not valid UTF-8"), std::string::npos);
  std::string bad = llama2_like(true);
  bad.replace(bad.find("\"a b\""), 5, "\"a z\"");
  auto m = BpeTokenizer::parse(bad, "", "t.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("not in the vocabulary"), std::string::npos) << m.error();
}

TEST(TokenizerPostProcessor, TemplatesRobertaSequencesAndTheConfigsBos) {
  const auto id_of = [](const std::string& token) { return token == "<s>" ? 1 : token == "</s>" ? 2 : token == "<e>" ? 3 : -1; };
  const auto ids = [&](const char* post, std::string_view config = "") {
    auto r = read_post_processor(json::parse(post), config, id_of, "t");
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
    return r.ok() ? std::pair{r->prefix, r->suffix} : std::pair<std::vector<int>, std::vector<int>>{};
  };
  using Ids = std::pair<std::vector<int>, std::vector<int>>;
  EXPECT_EQ(ids(R"({"type": "Sequence", "processors": [{"type": "ByteLevel"}, {"type": "TemplateProcessing",
                   "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                              {"SpecialToken": {"id": "</s>", "type_id": 0}}], "special_tokens": {}}]})"),
            (Ids{{1}, {2}}));
  EXPECT_EQ(ids(R"({"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0]})"), (Ids{{0}, {2}}));
  // A post-processor that adds nothing: tokenizer_config.json decides (see tokenizer_post.hpp).
  EXPECT_EQ(ids("null", R"({"bos_token": "<s>", "eos_token": "</s>"})"), (Ids{{1}, {}}));               // Llama 3
  EXPECT_EQ(ids("null", R"({"bos_token": "<e>", "eos_token": "<e>"})"), (Ids{{}, {}}));                 // GPT-2
  EXPECT_EQ(ids(R"({"type": "ByteLevel"})", R"({"add_bos_token": true, "add_eos_token": true, "bos_token": {"content": "<s>"},
                                              "eos_token": "</s>"})"),
            (Ids{{1}, {2}}));                                                                          // DeepSeek V3 and EOS
  EXPECT_EQ(ids("null", R"({"add_bos_token": false, "bos_token": "<s>"})"), (Ids{{}, {}}));
  auto unknown = read_post_processor(json::parse(R"({"type": "Aliens"})"), "", id_of, "t.json");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("post-processor Aliens is not supported"), std::string::npos);
}

// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// The encoder families' tokenizer parts on inputs small enough to derive by hand: WordPiece's
// longest pieces, BertNormalizer's switches, Unigram's best segmentation (ties, unknown runs, byte
// fallback), SentencePiece's charsmap (a double array built here by hand, and the nmt_nfkc one
// of tests/data/sentencepiece), the mask token and the WordPiece display.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer.hpp"
#include "tokenizer/tokenizer_display.hpp"
#include "tokenizer/tokenizer_model.hpp"
#include "tokenizer/tokenizer_normalize.hpp"
#include "tokenizer/tokenizer_precompiled.hpp"
#include "tokenizer/tokenizer_pretokenize.hpp"
#include "base/files.hpp"

using namespace poslab;
using json = nlohmann::json;

namespace {

std::vector<int> ids_of(const TokenModel& model, std::string_view word) {
  std::vector<int> out;
  std::string missing;
  if (!model.tokenize(word, out, &missing)) return {-2};  // refused, as tokenizers refuses it
  if (!missing.empty()) out.push_back(-1);  // marks text left out
  return out;
}

TokenModel model(const json& config) {
  auto m = TokenModel::parse(config, "t");
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error());
  return m.ok() ? std::move(*m) : TokenModel();
}

std::string bert(std::string_view text, const BertNormalizerOptions& options) {
  auto r = bert_normalize(text, options);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : "";
}

// A double array by hand, in darts-clone's layout: the root's children at offset 1, so "a" is
// unit 1 ^ 0x61 = 96, which has a leaf at 96 ^ 1 = 97 holding offset 0 of "b\0". Padded so that
// every probe stays inside the array.
std::string a_to_b_charsmap() {
  std::vector<std::uint32_t> units(1024, 0);
  units[0] = 1u << 10;
  units[96] = 0x61u | (1u << 8) | (1u << 10);
  units[97] = 0x80000000u;
  std::string blob(4, '\0');
  const std::uint32_t size = static_cast<std::uint32_t>(units.size() * 4);
  for (int k = 0; k < 4; ++k) blob[static_cast<std::size_t>(k)] = static_cast<char>((size >> (8 * k)) & 0xFF);
  for (std::uint32_t u : units)
    for (int k = 0; k < 4; ++k) blob += static_cast<char>((u >> (8 * k)) & 0xFF);
  return blob + std::string("b\0", 2);
}

// The precompiled_charsmap of a SentencePiece .model: ModelProto field 3 (normalizer_spec), its
// field 2. A protobuf walk just deep enough for that.
std::string charsmap_of_model(const std::string& proto) {
  const auto varint = [&](std::size_t& at) {
    std::uint64_t v = 0;
    for (int shift = 0; at < proto.size(); shift += 7) {
      const auto b = static_cast<unsigned char>(proto[at++]);
      v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if (b < 0x80) break;
    }
    return v;
  };
  const auto find = [&](std::size_t begin, std::size_t end,
                        std::uint64_t wanted) -> std::pair<std::size_t, std::size_t> {
    for (std::size_t at = begin; at < end;) {
      const std::uint64_t key = varint(at);
      const std::uint64_t wire = key & 7;
      std::size_t length = wire == 0 ? 0 : wire == 1 ? 8 : wire == 5 ? 4 : static_cast<std::size_t>(varint(at));
      if (wire == 0) varint(at);
      if ((key >> 3) == wanted && wire == 2) return {at, at + length};
      at += length;
    }
    return {0, 0};
  };
  const auto [spec_begin, spec_end] = find(0, proto.size(), 3);
  const auto [begin, end] = find(spec_begin, spec_end, 2);
  return proto.substr(begin, end - begin);
}

}  // namespace

TEST(TokenizerWordPiece, LongestPiecesFirstAndWholeWordsUnknown) {
  const json vocab = {{"[UNK]", 0}, {"un", 1},  {"##aff", 2}, {"##able", 3},
                      {"a", 4},     {"##b", 5}, {"##a", 6},   {"unaff", 7}};
  const TokenModel m = model({{"type", "WordPiece"}, {"vocab", vocab}});
  EXPECT_EQ(ids_of(m, "unaffable"), (std::vector<int>{7, 3}));  // "unaff" is longer than "un"
  EXPECT_EQ(ids_of(m, "aba"), (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(ids_of(m, "unaffablex"), (std::vector<int>{0}));  // one character without a piece: the word is [UNK]
  EXPECT_EQ(ids_of(m, "ba"), (std::vector<int>{0}));          // "b" starts no word: only "##b" exists
  const TokenModel short_words = model({{"type", "WordPiece"}, {"vocab", vocab}, {"max_input_chars_per_word", 8}});
  EXPECT_EQ(ids_of(short_words, "unaffab"), (std::vector<int>{7, 6, 5}));
  EXPECT_EQ(ids_of(short_words, "unaffable"), (std::vector<int>{0}));  // 9 characters > 8
  const TokenModel at = model({{"type", "WordPiece"},
                               {"vocab", {{"<unk>", 0}, {"a", 1}, {"@@b", 2}}},
                               {"unk_token", "<unk>"},
                               {"continuing_subword_prefix", "@@"}});
  EXPECT_EQ(ids_of(at, "ab"), (std::vector<int>{1, 2}));
  const TokenModel no_unk = model({{"type", "WordPiece"}, {"vocab", {{"a", 0}}}});
  EXPECT_EQ(ids_of(no_unk, "a"), (std::vector<int>{0}));
  EXPECT_EQ(ids_of(no_unk, "ab"), (std::vector<int>{-2}));  // no [UNK] to stand for it: refused
  EXPECT_FALSE(
      TokenModel::parse({{"type", "WordPiece"}, {"vocab", {{"a", 0}}}, {"max_input_chars_per_word", -1}}, "t").ok());
  EXPECT_FALSE(TokenModel::parse({{"type", "WordPiece"}, {"vocab", json::array()}}, "t").ok());
  auto level = TokenModel::parse({{"type", "WordLevel"}, {"vocab", json::object()}}, "t");
  ASSERT_FALSE(level.ok());
  EXPECT_NE(level.error().find("WordLevel is not supported"), std::string::npos) << level.error();
}

TEST(TokenizerNormalizer, BertNormalizerSwitches) {
  const std::string text = "H\u00e9llo\tW\u00f6rld \u4e2d\u6587\u200b!\u0007";
  EXPECT_EQ(bert(text, {}), "hello world  \u4e2d  \u6587 !");
  EXPECT_EQ(bert(text, {true, true, false, false}), "H\u00e9llo W\u00f6rld  \u4e2d  \u6587 !");
  EXPECT_EQ(bert(text, {false, false, true, false}), "Hello\tWorld \u4e2d\u6587\u200b!\u0007");
  // Hiragana and Hangul are not Chinese characters; U+3400 (extension A) and U+F900 are.
  EXPECT_EQ(bert("\u3072\ud55c\u3400\uf900", {true, true, false, false}), "\u3072\ud55c \u3400  \uf900 ");
  // Removed: U+FFFD, format and private-use characters; kept: a format character Unicode 8.0 did
  // not have yet (U+08E2, 9.0), as tokenizers' Unicode 8.0 tables keep it. U+1734 is a
  // nonspacing mark there (Mc since Unicode 14) and is stripped.
  EXPECT_EQ(bert("a\ufffdb\u00adc\ue000d\u08e2e\u1734", {}), "abcd\u08e2e");
  // Whatever lowercase says, strip_accents null follows it: the file reader's rule.
  auto n =
      Normalizer::parse(json::parse(R"({"type": "BertNormalizer", "lowercase": false, "strip_accents": null})"), "t");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n->apply("Caf\u00e9"), "Caf\u00e9");
  n = Normalizer::parse(json::parse(R"({"type": "BertNormalizer", "lowercase": false, "strip_accents": true})"), "t");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n->apply("Caf\u00e9"), "Cafe");
}

TEST(TokenizerUnigram, BestSegmentationTiesUnknownRunsAndByteFallback) {
  const json vocab = json::array({json::array({"<unk>", 0.0}), json::array({"a", -1.0}), json::array({"b", -2.0}),
                                  json::array({"ab", -2.5}), json::array({"c", -3.0})});
  const TokenModel m = model({{"type", "Unigram"}, {"unk_id", 0}, {"vocab", vocab}});
  EXPECT_EQ(ids_of(m, "ab"), (std::vector<int>{3}));  // -2.5 beats a + b = -3
  EXPECT_EQ(ids_of(m, "abc"), (std::vector<int>{3, 4}));
  EXPECT_EQ(ids_of(m, "xyab"), (std::vector<int>{0, 3}));  // x and y unknown: one fused <unk>
  EXPECT_EQ(ids_of(m, "axb"), (std::vector<int>{1, 0, 2}));
  // A tie keeps the first path found: "ab" (offered from the start) against a + b.
  const json tied = json::array(
      {json::array({"<unk>", 0.0}), json::array({"a", -1.0}), json::array({"b", -1.0}), json::array({"ab", -2.0})});
  EXPECT_EQ(ids_of(model({{"type", "Unigram"}, {"unk_id", 0}, {"vocab", tied}}), "ab"), (std::vector<int>{3}));
  // An unknown character costs the lowest score minus 10, so a piece that covers it always wins,
  // however unlikely the piece.
  const json over =
      json::array({json::array({"<unk>", 0.0}), json::array({"x", -1.0}), json::array({"x\u00e9x", -30.0})});
  EXPECT_EQ(ids_of(model({{"type", "Unigram"}, {"unk_id", 0}, {"vocab", over}}), "x\u00e9x"), (std::vector<int>{2}));
  EXPECT_EQ(ids_of(model({{"type", "Unigram"}, {"unk_id", 0}, {"vocab", over}}), "x\u00e9"), (std::vector<int>{1, 0}));
  // Byte fallback: a fused run of unknown characters as its bytes, when every byte has a piece.
  json bytes = json::array({json::array({"<unk>", 0.0}), json::array({"a", -1.0})});
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    bytes.push_back(json::array({name, 0.0}));
  }
  const TokenModel fallback = model({{"type", "Unigram"}, {"unk_id", 0}, {"vocab", bytes}, {"byte_fallback", true}});
  EXPECT_EQ(ids_of(fallback, "a\u00e9\u00e9a"), (std::vector<int>{1, 2 + 0xC3, 2 + 0xA9, 2 + 0xC3, 2 + 0xA9, 1}));
  EXPECT_FALSE(TokenModel::parse({{"type", "Unigram"}, {"unk_id", 9}, {"vocab", vocab}}, "t").ok());
  EXPECT_FALSE(TokenModel::parse({{"type", "Unigram"}, {"vocab", json::array({json::array({"a"})})}}, "t").ok());
  const TokenModel no_unk = model({{"type", "Unigram"}, {"vocab", json::array({json::array({"a", -1.0})})}});
  EXPECT_EQ(ids_of(no_unk, "aa"), (std::vector<int>{0, 0}));
  EXPECT_EQ(ids_of(no_unk, "ab"), (std::vector<int>{-2}));  // no unk_id to stand for b: refused, as tokenizers does
}

TEST(TokenizerPrecompiled, AHandBuiltTrieAndGraphemes) {
  auto m = PrecompiledCharsmap::from_bytes(a_to_b_charsmap(), "t");
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->normalize("xa"), "xb");
  EXPECT_EQ(m->normalize("ba"), "bb");
  // A grapheme under 6 bytes goes whole to the replacement of its shortest prefix: the accent
  // goes too. From 6 bytes on, character by character: the marks stay. (tokenizers does both.)
  EXPECT_EQ(m->normalize("a\u0301x"), "bx");
  EXPECT_EQ(m->normalize("a\u0301\u0302\u0303"), "b\u0301\u0302\u0303");
  EXPECT_FALSE(PrecompiledCharsmap::parse("not base64!", "t").ok());
  EXPECT_FALSE(PrecompiledCharsmap::from_bytes(std::string("\xff\xff\xff\x7f", 4) + "abcd", "t").ok());
  EXPECT_FALSE(PrecompiledCharsmap::from_bytes("ab", "t").ok());
  auto empty = PrecompiledCharsmap::parse("", "t");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->normalize("a\u0301"), "a\u0301");
  auto decoded = decode_base64("aGVsbG8=", "t");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, "hello");
}

TEST(TokenizerPrecompiled, SentencePiecesNmtNfkcCharsmap) {
  const auto path = std::filesystem::path(POSLAB_TEST_DATA) / "sentencepiece/t5_like.model";
  auto proto = read_whole_file(path, kMatrixFile);
  ASSERT_TRUE(proto.ok()) << proto.error();
  auto m = PrecompiledCharsmap::from_bytes(charsmap_of_model(*proto), "t5_like");
  ASSERT_TRUE(m.ok()) << m.error();
  ASSERT_FALSE(m->empty());
  // NFKC's compatibility forms, and nmt's white space.
  EXPECT_EQ(m->normalize("\uff21\uff22\uff23\uff11"), "ABC1");
  EXPECT_EQ(m->normalize("\ufb01ne \u2460 x\u00b2 \u00bd"), "fine 1 x2 1\u20442");
  EXPECT_EQ(m->normalize("a\u3000b"), "a b");
  EXPECT_EQ(m->normalize("e\u0301"), "\u00e9");
  EXPECT_EQ(m->normalize("plain ascii stays"), "plain ascii stays");
}

TEST(TokenizerEncoders, MaskTokenSpecialsAndWordPieceDisplay) {
  const json tokenizer = {
      {"added_tokens", json::array({{{"id", 0}, {"content", "[UNK]"}, {"special", true}},
                                    {{"id", 1}, {"content", "[CLS]"}, {"special", true}},
                                    {{"id", 2}, {"content", "[SEP]"}, {"special", true}},
                                    {{"id", 3}, {"content", "[MASK]"}, {"special", true}, {"lstrip", true}}})},
      {"normalizer", {{"type", "BertNormalizer"}}},
      {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
      {"post_processor", {{"type", "BertProcessing"}, {"cls", {"[CLS]", 1}}, {"sep", {"[SEP]", 2}}}},
      {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}}},
      {"model",
       {{"type", "WordPiece"},
        {"vocab",
         {{"[UNK]", 0},
          {"[CLS]", 1},
          {"[SEP]", 2},
          {"[MASK]", 3},
          {"paris", 4},
          {"is", 5},
          {"##n't", 6},
          {".", 7},
          {"play", 8},
          {"##ing", 9}}}}}};
  auto t = BpeTokenizer::parse(tokenizer.dump(), "", "t");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->mask_token_id(), 3);
  auto ids = t->encode("Paris is  [MASK] playing.");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<int>{1, 4, 5, 3, 8, 9, 7, 2}));
  EXPECT_TRUE(t->is_special(1) && t->is_special(3));
  EXPECT_FALSE(t->is_special(4));
  EXPECT_EQ(t->token_texts(*ids),
            (std::vector<std::string>{"[CLS]", " paris", " is", "[MASK]", " play", "ing", ".", "[SEP]"}));
  EXPECT_EQ(t->describe(), "WordPiece, normalizer BertNormalizer");
  // tokenizer_config.json's mask_token decides over the added tokens' names.
  auto named = BpeTokenizer::parse(tokenizer.dump(), R"({"mask_token": {"content": "[SEP]"}})", "t");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->mask_token_id(), 2);
}

// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// The text loader on good and malformed files; the tokenizer; the shipped default data.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdio>

#include <fstream>

#include "core/formats/embeddings.hpp"
#include "core/state.hpp"
#include "core/formats/tokenizer.hpp"
#include "core/workspace.hpp"

using namespace poslab;

namespace {
std::string data(const std::string& name) { return std::string(POSLAB_TEST_DATA) + "/" + name; }

// The error for `file`, which must fail to load.
std::string load_error(const std::string& file) {
  auto r = load_text_embeddings(data(file));
  EXPECT_FALSE(r.ok()) << file << " loaded but should not";
  return r.ok() ? std::string() : r.error();
}
}  // namespace

TEST(Loader, ReadsGlove) {
  auto r = load_text_embeddings(data("good_glove.txt"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->size(), 3);
  EXPECT_EQ(r->dim(), 3);
  EXPECT_FLOAT_EQ(r->vectors()(r->find("dog"), 1), 0.25f);
  EXPECT_EQ(r->find("cat"), -1);
}

TEST(Loader, ReadsWord2vecTextWithHeader) {
  auto r = load_text_embeddings(data("good_word2vec.txt"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->size(), 3);
  EXPECT_EQ(r->dim(), 2);
  EXPECT_FLOAT_EQ(r->vectors()(r->find("Dog"), 0), 3.0f);
}

TEST(Loader, MalformedFilesGiveErrorsNamingFileAndLine) {
  std::string e = load_error("wrong_count.txt");
  EXPECT_NE(e.find("wrong_count.txt:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("expected 3 numbers"), std::string::npos) << e;
  EXPECT_NE(e.find("found 2"), std::string::npos) << e;

  e = load_error("not_a_number.txt");
  EXPECT_NE(e.find("not_a_number.txt:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"abc\" is not a finite number"), std::string::npos) << e;

  e = load_error("truncated_line.txt");
  EXPECT_NE(e.find("truncated_line.txt:3:"), std::string::npos) << e;

  e = load_error("truncated_word2vec.txt");
  EXPECT_NE(e.find("announces 5 words but the file has 2"), std::string::npos) << e;

  e = load_error("empty.txt");
  EXPECT_NE(e.find("empty"), std::string::npos) << e;

  e = load_error("word_only.txt");
  EXPECT_NE(e.find("word_only.txt:2:"), std::string::npos) << e;

  e = load_error("no_such_file.txt");
  EXPECT_NE(e.find("no_such_file.txt: no such file"), std::string::npos) << e;

  e = load_error(".");
  EXPECT_NE(e.find("directory"), std::string::npos) << e;
}

TEST(Loader, RejectsNonFiniteAndGarbage) {
  EXPECT_FALSE(parse_text_embeddings("a 1 nan\n", "x").ok());
  EXPECT_FALSE(parse_text_embeddings("a 1 inf\n", "x").ok());
  EXPECT_FALSE(parse_text_embeddings("a 1 2x\n", "x").ok());
  EXPECT_FALSE(parse_text_embeddings("\n\n\n", "x").ok());
  EXPECT_FALSE(parse_text_embeddings("0 5\n", "x").ok());
  EXPECT_TRUE(parse_text_embeddings("a 1 2\r\nb 3 4\r\n", "x").ok());
}

TEST(Workspace, FailedLoadKeepsThePreviousTable) {
  Workspace w;
  ASSERT_TRUE(w.load_embeddings(data("good_glove.txt")).ok());
  State state;
  state.backend = Backend::Cpu;
  state.model.heads = 3;
  state.model.sentence = "the dog";
  ASSERT_TRUE(w.update(state).ok());
  const auto version = w.version();
  for (const char* bad : {"wrong_count.txt", "empty.txt", "missing.txt"}) {
    EXPECT_FALSE(w.load_embeddings(data(bad)).ok());
    EXPECT_EQ(w.embeddings().size(), 3);
    EXPECT_EQ(w.embeddings_path(), data("good_glove.txt"));
  }
  EXPECT_EQ(w.version(), version);
  EXPECT_NE(w.results(), nullptr);
}

TEST(Workspace, RecomputesOnlyWhenAnInputChanges) {
  Workspace w;
  ASSERT_TRUE(w.load_embeddings(data("good_glove.txt")).ok());
  State state;
  state.backend = Backend::Cpu;
  state.model.heads = 3;
  ASSERT_TRUE(w.update(state).ok());
  const auto v = w.version();
  state.view.head = 2;  // a view setting: no recompute
  ASSERT_TRUE(w.update(state).ok());
  EXPECT_EQ(w.version(), v);
  state.model.causal = true;
  ASSERT_TRUE(w.update(state).ok());
  EXPECT_EQ(w.version(), v + 1);
  state.model.heads = 2;  // invalid for width 3: error, previous results kept
  EXPECT_FALSE(w.update(state).ok());
  EXPECT_FALSE(w.update(state).ok());  // still reported on the next frame
  EXPECT_EQ(w.version(), v + 1);
}

TEST(Tokenizer, SplitsWordsAndPunctuation) {
  EXPECT_EQ(split_words("May the force be with you."),
            (std::vector<std::string>{"May", "the", "force", "be", "with", "you", "."}));
  EXPECT_EQ(split_words("  don't  stop,now!"), (std::vector<std::string>{"don't", "stop", ",", "now", "!"}));
  EXPECT_EQ(split_words("état-major 42"), (std::vector<std::string>{"état-major", "42"}));
  EXPECT_TRUE(split_words(" \t\n").empty());
}

TEST(Tokenizer, LooksUpExactlyThenLowerCased) {
  auto table = load_text_embeddings(data("good_word2vec.txt"));
  ASSERT_TRUE(table.ok());
  const auto tokens = tokenize("Dog DOG The cat", *table);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].row, table->find("Dog"));  // exact match wins
  EXPECT_EQ(tokens[1].row, table->find("dog"));  // then lower case
  EXPECT_EQ(tokens[2].row, table->find("the"));
  EXPECT_TRUE(tokens[3].unknown);
  EXPECT_EQ(tokens[3].text, "cat");
}

TEST(Tokenizer, UnknownWordsGetDeterministicVectors) {
  const Vector a = unknown_token_vector("zyzzyva", 50, 0.4f);
  const Vector b = unknown_token_vector("zyzzyva", 50, 0.4f);
  const Vector c = unknown_token_vector("zyzzyvas", 50, 0.4f);
  EXPECT_EQ(a, b);
  EXPECT_GT((a - c).cwiseAbs().maxCoeff(), 1e-3f);
  EXPECT_NEAR(std::sqrt(a.squaredNorm() / 50.0f), 0.4f, 0.15f);
}

TEST(DefaultData, SampleSentencesMatchTheAssetFile) {
  std::ifstream in(std::string(POSLAB_ASSETS) + "/sample_sentences.txt");
  ASSERT_TRUE(in);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  EXPECT_EQ(lines, sample_sentences());
}

TEST(DefaultData, ShippedEmbeddingsCoverEverySampleWord) {
  auto table = load_text_embeddings(std::string(POSLAB_ASSETS) + "/glove-wink-100d-10k.txt");
  ASSERT_TRUE(table.ok()) << table.error();
  EXPECT_EQ(table->dim(), 100);
  EXPECT_GE(table->size(), 10000);
  for (const auto& sentence : sample_sentences())
    for (const auto& token : tokenize(sentence, *table)) EXPECT_FALSE(token.unknown) << token.text;
  // GloVe 6B's most frequent word comes first.
  EXPECT_EQ(table->word(0), "the");
}

TEST(EmbeddingsText, FastDecimalsEqualFromChars) {
  // The parser's fast path for plain decimals must give the same floats as std::from_chars.
  std::string text;
  std::vector<std::string> fields;
  std::uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift
    char buf[40];
    const double v = static_cast<double>(x % 2000001) / 1000.0 - 1000.0;
    const int decimals = static_cast<int>(x % 8);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v / std::pow(10.0, static_cast<double>(x % 4)));
    fields.push_back(buf);
  }
  for (const char* edge : {"0", "-0", "0.0", "1e-05", "3.4028235e38", "1.17549435e-38", "16777217", "0.1234567",
                           "-9999999", "12345678.9", "0.00000001", "7."})
    fields.push_back(edge);
  text = "w";
  for (const auto& f : fields) text += " " + f;
  text += "\n";
  auto table = parse_text_embeddings(text, "x");
  ASSERT_TRUE(table.ok()) << table.error();
  for (std::size_t j = 0; j < fields.size(); ++j) {
    float expected = 0.0f;
    std::from_chars(fields[j].data(), fields[j].data() + fields[j].size(), expected);
    EXPECT_EQ(table->vectors()(0, static_cast<Eigen::Index>(j)), expected) << fields[j];
  }
}

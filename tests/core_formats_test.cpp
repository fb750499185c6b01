// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// word2vec binary and .npy-with-vocabulary embeddings, on files written by NumPy from the format
// descriptions (tests/data/formats/make_formats.py), then malformed and randomly mutated input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/formats/formats.hpp"
#include "core/formats/npy.hpp"
#include "base/random.hpp"
#include "temp_folder.hpp"

using namespace poslab;

namespace {

std::filesystem::path data(const std::string& name) {
  return std::filesystem::path(POSLAB_TEST_DATA) / "formats" / name;
}

std::string bytes_of(const std::string& name) {
  std::ifstream in(data(name), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The values NumPy wrote beside a test file (float32, so exact).
Matrix expected(const std::string& name) {
  auto m = load_npy_matrix(data(name));
  EXPECT_TRUE(m.ok()) << m.error();
  return m.ok() ? *m : Matrix();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The words and vectors of make_formats.py's WORDS and VEC.
void expect_good_word2vec(const Result<EmbeddingTable>& t) {
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_EQ(t->size(), 3);
  ASSERT_EQ(t->dim(), 4);
  EXPECT_EQ(t->word(0), "the");
  EXPECT_EQ(t->word(1), "über");
  EXPECT_EQ(t->word(2), "x-ray");
  EXPECT_EQ(t->vectors(), expected("w2v_expected.npy"));
  EXPECT_EQ(t->find("x-ray"), 2);
}

std::string parse_error(std::string_view bytes) {
  auto t = parse_word2vec_binary(bytes, "mem.bin");
  EXPECT_FALSE(t.ok()) << "parsed: " << std::string(bytes.substr(0, 20));
  if (t.ok()) return "";
  EXPECT_EQ(t.error().rfind("mem.bin: ", 0), 0u) << t.error();
  return t.error();
}

}  // namespace

// --- word2vec binary ----------------------------------------------------------------------------

TEST(Formats, Word2vecBinaryWithNewlineAfterEachRecord) {
  expect_good_word2vec(load_word2vec_binary(data("w2v_good.bin")));
}

TEST(Formats, Word2vecBinaryWithoutNewlines) { expect_good_word2vec(load_word2vec_binary(data("w2v_good_nonl.bin"))); }

TEST(Formats, Word2vecBinaryTruncatedNamesFileAndRecord) {
  auto t = load_word2vec_binary(data("w2v_truncated.bin"));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.error(), "w2v_truncated.bin: record 3 of 3: ")) << t.error();
  EXPECT_TRUE(contains(t.error(), "truncated")) << t.error();
}

// Every prefix is malformed, except the good file less its optional final newline.
TEST(Formats, Word2vecBinaryEveryPrefixIsAnError) {
  for (const char* name : {"w2v_good.bin", "w2v_good_nonl.bin"}) {
    const std::string full = bytes_of(name);
    ASSERT_TRUE(parse_word2vec_binary(full, name).ok());
    for (std::size_t n = 0; n < full.size(); ++n) {
      // A heap copy of exactly n bytes, so that a read past the end is visible to sanitizers.
      const std::string prefix = full.substr(0, n);
      const bool whole = full.ends_with('\n') && n == full.size() - 1;
      EXPECT_EQ(parse_word2vec_binary(prefix, name).ok(), whole) << name << " cut at " << n;
    }
  }
}

TEST(Formats, Word2vecBinaryBadHeader) {
  auto t = load_word2vec_binary(data("w2v_bad_header.bin"));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.error(), "w2v_bad_header.bin: the first line \"3 four\" is not a word2vec header"))
      << t.error();

  EXPECT_TRUE(contains(parse_error(""), "no header line"));
  EXPECT_TRUE(contains(parse_error("3 4"), "no header line"));
  EXPECT_TRUE(contains(parse_error("3\n"), "not a word2vec header"));
  EXPECT_TRUE(contains(parse_error("3 4 5\n"), "not a word2vec header"));
  EXPECT_TRUE(contains(parse_error("0 4\n"), "invalid count (0)"));
  EXPECT_TRUE(contains(parse_error("3 -4\n"), "dimension (-4)"));
  EXPECT_TRUE(contains(parse_error("3 0\n"), "dimension (0)"));
  EXPECT_TRUE(contains(parse_error("3 2000000\n"), "dimension (2000000)"));
  EXPECT_TRUE(contains(parse_error("3000000000 4\n"), "invalid count (3000000000)"));
  EXPECT_TRUE(contains(parse_error("99999999999999999999 4\n"), "not a word2vec header"));
  EXPECT_TRUE(contains(parse_error("100000 30000\n"), "more than the 2^31 supported"));
  // A lying count is caught before anything is allocated for it.
  const std::string body = bytes_of("w2v_good.bin").substr(4);
  const std::string e = parse_error("2000000 1000\n" + body);
  EXPECT_TRUE(contains(e, "announces 2000000 words of 1000 floats")) << e;
  EXPECT_TRUE(contains(e, "truncated")) << e;
}

TEST(Formats, Word2vecBinaryNonFiniteNamesRecordAndWord) {
  auto t = load_word2vec_binary(data("w2v_nonfinite.bin"));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.error(),
                       "w2v_nonfinite.bin: record 2 of 3: non-finite value (inf or nan) "
                       "at position 3 of 4 in the vector of \"über\""))
      << t.error();
}

TEST(Formats, Word2vecBinaryCountMustMatchTheRecords) {
  const std::string good = bytes_of("w2v_good.bin");
  // Fewer words announced than present: the rest is reported, not ignored.
  std::string e = parse_error("2 4\n" + good.substr(4));
  EXPECT_TRUE(contains(e, "bytes follow the 2 words that the header announces")) << e;
  // Trailing whitespace is harmless; other trailing bytes are not.
  EXPECT_TRUE(parse_word2vec_binary(good + "\n\n  ", "mem.bin").ok());
  e = parse_error(good + "junk");
  EXPECT_TRUE(contains(e, "4 bytes follow the 3 words")) << e;
  // More words announced than present (4 × 18 bytes fit, so this reaches record 4).
  e = parse_error("4 4\n" + good.substr(4) + std::string(10, 'z'));
  EXPECT_TRUE(contains(e, "record 4 of 4: the file ends inside the word")) << e;
}

TEST(Formats, Word2vecBinaryEmptyWordAndWrongDimension) {
  const std::string good = bytes_of("w2v_good.bin");
  std::string e = parse_error("3 4\n" + good.substr(4).insert(0, " "));
  EXPECT_TRUE(contains(e, "record 1 of 3: the word is empty")) << e;
  // Claiming 3 values per word misaligns the next record, whose "word" then holds a newline or
  // the values go astray: an error either way, never garbage.
  EXPECT_FALSE(parse_word2vec_binary("3 3\n" + good.substr(4), "mem.bin").ok());
}

TEST(Formats, Word2vecBinaryMissingFile) {
  auto t = load_word2vec_binary(data("no_such.bin"));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.error(), "no_such.bin: no such file")) << t.error();
}

// Random damage to good files: any outcome but a crash; errors name the file; a table that
// loads is consistent.
TEST(Formats, Word2vecBinaryRandomMutationsNeverCrash) {
  Rng rng(7321);
  int loaded = 0;
  for (const char* name : {"w2v_good.bin", "w2v_good_nonl.bin"}) {
    const std::string full = bytes_of(name);
    for (int trial = 0; trial < 1000; ++trial) {
      std::string m = full;
      switch (rng.next_u64() % 4) {
        case 0:  // overwrite 1 to 4 bytes
          for (int f = 0, n = 1 + static_cast<int>(rng.next_u64() % 4); f < n; ++f)
            m[rng.next_u64() % m.size()] = static_cast<char>(rng.next_u64() & 0xFF);
          break;
        case 1:  // cut
          m.resize(rng.next_u64() % m.size());
          break;
        case 2:  // insert a few bytes
          m.insert(rng.next_u64() % (m.size() + 1),
                   std::string(1 + rng.next_u64() % 8, static_cast<char>(rng.next_u64() & 0xFF)));
          break;
        default:  // change the header's numbers
          m[rng.next_u64() % 3] = static_cast<char>('0' + rng.next_u64() % 10);
          break;
      }
      auto t = parse_word2vec_binary(m, "fuzz.bin");
      if (t.ok()) {
        ++loaded;
        EXPECT_EQ(t->vectors().rows(), t->size());
        EXPECT_TRUE(t->vectors().allFinite());
      } else {
        EXPECT_EQ(t.error().rfind("fuzz.bin: ", 0), 0u) << t.error();
      }
    }
  }
  EXPECT_GT(loaded, 0);  // some flips only change values: the loop reaches the whole parser
}

// --- .npy with a vocabulary ---------------------------------------------------------------------

TEST(Formats, NpyWithVocabularyBesideIt) {
  auto t = load_npy_embeddings(data("emb.npy"));
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_EQ(t->size(), 3);
  EXPECT_EQ(t->word(0), "alpha");  // "\r\n" line ending stripped
  EXPECT_EQ(t->word(1), "beta");
  EXPECT_EQ(t->word(2), "gamma");  // no final newline
  EXPECT_EQ(t->vectors(), expected("w2v_expected.npy"));
  EXPECT_EQ(t->source(), data("emb.npy").string());
}

TEST(Formats, NpyWithExplicitVocabularyAndAnEmptyToken) {
  auto t = load_npy_embeddings(data("emb.npy"), data("with_empty_token.txt"));
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_EQ(t->size(), 3);
  EXPECT_EQ(t->word(0), "a");
  EXPECT_EQ(t->word(1), "");
  EXPECT_EQ(t->word(2), "c");
  EXPECT_EQ(t->find(""), 1);

  // A UTF-8 byte-order mark (Notepad's habit) is not part of the first token.
  const poslab::test_support::TempFolder tmp("bom");
  const auto bom = tmp / "bom.txt";
  { std::ofstream(bom, std::ios::binary) << "\xEF\xBB\xBFx\ny\nz\n"; }
  auto b = load_npy_embeddings(data("emb.npy"), bom);
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(b->word(0), "x");
  EXPECT_EQ(b->word(2), "z");
}

TEST(Formats, NpyVocabularyCountMismatchNamesBothNumbers) {
  auto t = load_npy_embeddings(data("short.npy"));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.error(), "short.vocab.txt: the vocabulary has 2 lines")) << t.error();
  EXPECT_TRUE(contains(t.error(), "short.npy has 3 rows")) << t.error();
}

TEST(Formats, NpyWithoutVocabularyUsesTokenIds) {
  auto t = load_npy_embeddings(data("ids.npy"));
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_EQ(t->size(), 2);
  EXPECT_EQ(t->word(0), "0");
  EXPECT_EQ(t->word(1), "1");
  EXPECT_EQ(t->find("1"), 1);
  EXPECT_EQ(t->vectors()(1, 2), 5.0f);
}

TEST(Formats, NpyErrorsNameTheFile) {
  auto missing_vocab = load_npy_embeddings(data("emb.npy"), data("no_such_vocab.txt"));
  ASSERT_FALSE(missing_vocab.ok());
  EXPECT_TRUE(contains(missing_vocab.error(), "no_such_vocab.txt: no such file")) << missing_vocab.error();
  auto missing_npy = load_npy_embeddings(data("no_such.npy"));
  ASSERT_FALSE(missing_npy.ok());
  EXPECT_TRUE(contains(missing_npy.error(), "no_such.npy")) << missing_npy.error();
  auto not_npy = load_npy_embeddings(data("w2v_good.bin"), data("with_empty_token.txt"));
  ASSERT_FALSE(not_npy.ok());
  EXPECT_TRUE(contains(not_npy.error(), "w2v_good.bin: not a NumPy .npy file")) << not_npy.error();
}

// --- Format detection ---------------------------------------------------------------------------

TEST(Formats, DetectFormatByExtensionAndContent) {
  using F = EmbeddingFormat;
  EXPECT_EQ(detect_format("a/vectors.bin", "3 4\nthe "), F::Word2vecBinary);
  EXPECT_EQ(detect_format("a/VECTORS.BIN", ""), F::Word2vecBinary);
  EXPECT_EQ(detect_format("m.npy", ""), F::Npy);
  EXPECT_EQ(detect_format("model.safetensors", ""), F::Safetensors);
  EXPECT_EQ(detect_format("glove.6B.50d.txt", "the 0.1 0.2\n"), F::GloveText);
  EXPECT_EQ(detect_format("w2v.txt", "3 4\nthe 0.1 0.2 0.3 0.4\n"), F::GloveText);
  EXPECT_EQ(detect_format("noext", ""), F::GloveText);
  // Content, where the extension says nothing (or says something else for .npy).
  EXPECT_EQ(detect_format("matrix.dat", bytes_of("emb.npy")), F::Npy);
  EXPECT_EQ(detect_format("model.bin", bytes_of("emb.npy")), F::Npy);
  EXPECT_EQ(detect_format("model", bytes_of("st_f32.safetensors")), F::Safetensors);
  EXPECT_EQ(detect_format("vectors", bytes_of("w2v_good.bin")), F::Word2vecBinary);
}

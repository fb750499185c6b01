// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// The memory-mapped .safetensors reader on files written byte by byte from the format description
// (tests/data/formats/make_formats.py): F32, F16 and BF16 values against NumPy's, the choice of
// the embedding tensor, malicious headers, and random damage (no crash, a clear error).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/formats/npy.hpp"
#include "base/random.hpp"
#include "core/formats/safetensors.hpp"
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

Matrix expected(const std::string& name) {
  auto m = load_npy_matrix(data(name));
  EXPECT_TRUE(m.ok()) << m.error();
  return m.ok() ? *m : Matrix();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string open_error(const std::string& name) {
  auto f = SafetensorsFile::open(data(name));
  EXPECT_FALSE(f.ok()) << name;
  if (f.ok()) return "";
  EXPECT_EQ(f.error().rfind(data(name).string() + ": ", 0), 0u) << f.error();
  return f.error();
}

// The embedding tensor of a file that must open, or null.
const TensorInfo* embedding(const Result<SafetensorsFile>& f, const std::string& name = "") {
  if (!f.ok()) {
    ADD_FAILURE() << f.error();
    return nullptr;
  }
  auto t = f->embedding_tensor(name);
  if (!t.ok()) {
    ADD_FAILURE() << t.error();
    return nullptr;
  }
  return *t;
}

const std::vector<std::int64_t> kAllRows = {0, 1, 2, 3, 4};
const std::vector<std::int64_t> kGather = {4, 0, 4, 2};  // make_formats.py's GATHER

}  // namespace

TEST(Safetensors, ListsTensorsInDataOrder) {
  auto f = SafetensorsFile::open(data("st_f32.safetensors"));
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_EQ(f->name(), data("st_f32.safetensors").string());
  const auto& ts = f->tensors();
  ASSERT_EQ(ts.size(), 3u);  // "__metadata__" is not a tensor
  EXPECT_EQ(ts[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(ts[0].dtype, "F32");
  EXPECT_EQ(ts[0].shape, (std::vector<std::int64_t>{5, 4}));
  EXPECT_EQ(ts[0].begin, 0u);
  EXPECT_EQ(ts[0].end, 80u);
  EXPECT_EQ(ts[1].name, "model.norm.weight");
  EXPECT_EQ(ts[1].begin, 80u);
  EXPECT_EQ(ts[2].name, "lm_head.weight");
  EXPECT_EQ(ts[2].end, 128u);
  EXPECT_TRUE(f->unsupported_tensors().empty());
}

TEST(Safetensors, ReadsF32F16AndBf16AsNumPyDoes) {
  for (const char* kind : {"f32", "f16", "bf16"}) {
    const std::string file = std::string("st_") + kind + ".safetensors";
    auto f = SafetensorsFile::open(data(file));
    const TensorInfo* t = embedding(f);
    ASSERT_NE(t, nullptr) << file;
    EXPECT_EQ(t->name, "model.embed_tokens.weight");
    auto all = f->rows(*t, kAllRows);
    ASSERT_TRUE(all.ok()) << all.error();
    EXPECT_EQ(*all, expected(std::string("st_") + kind + "_expected.npy")) << file;
    auto gathered = f->rows(*t, kGather);
    ASSERT_TRUE(gathered.ok()) << gathered.error();
    EXPECT_EQ(*gathered, expected(std::string("st_") + kind + "_gather.npy")) << file;
  }
}

// The binary16 edge values, spelled out (they are also in st_f16_expected.npy).
TEST(Safetensors, F16IsExactIncludingSubnormals) {
  auto f = SafetensorsFile::open(data("st_f16.safetensors"));
  const TensorInfo* t = embedding(f);
  ASSERT_NE(t, nullptr);
  const std::vector<std::int64_t> ids = {0, 1, 2};
  auto m = f->rows(*t, ids);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ((*m)(0, 0), 0.0f);
  EXPECT_TRUE(std::signbit((*m)(0, 1)));
  EXPECT_EQ((*m)(0, 2), std::ldexp(1.0f, -24));
  EXPECT_EQ((*m)(0, 3), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ((*m)(1, 0), std::ldexp(1.0f, -14));
  EXPECT_EQ((*m)(1, 1), 65504.0f);
  EXPECT_EQ((*m)(1, 2), -65504.0f);
  EXPECT_EQ((*m)(1, 3), 0.333251953125f);
  EXPECT_EQ((*m)(2, 0), -3 * std::ldexp(1.0f, -24));
}

TEST(Safetensors, ParsedBytesMatchTheMappedFile) {
  auto mapped = SafetensorsFile::open(data("st_bf16.safetensors"));
  auto parsed = SafetensorsFile::parse(bytes_of("st_bf16.safetensors"), "mem.safetensors");
  const TensorInfo* a = embedding(mapped);
  const TensorInfo* b = embedding(parsed);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  EXPECT_EQ(parsed->name(), "mem.safetensors");
  EXPECT_EQ(*mapped->rows(*a, kGather), *parsed->rows(*b, kGather));
}

// Moving the file object moves the mapping; TensorInfo pointers stay valid (vector moved).
TEST(Safetensors, MovedFileStillReads) {
  auto f = SafetensorsFile::open(data("st_f32.safetensors"));
  ASSERT_TRUE(f.ok()) << f.error();
  SafetensorsFile moved = std::move(*f);
  SafetensorsFile assigned = std::move(moved);
  auto t = assigned.embedding_tensor("");
  ASSERT_TRUE(t.ok()) << t.error();
  auto m = assigned.rows(**t, kGather);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(*m, expected("st_f32_gather.npy"));
}

TEST(Safetensors, RowIdsOutOfRangeAreErrors) {
  auto f = SafetensorsFile::open(data("st_f32.safetensors"));
  const TensorInfo* t = embedding(f);
  ASSERT_NE(t, nullptr);
  for (std::int64_t bad : {std::int64_t{-1}, std::int64_t{5}, std::int64_t{1} << 40}) {
    const std::vector<std::int64_t> ids = {0, bad};
    auto m = f->rows(*t, ids);
    ASSERT_FALSE(m.ok());
    EXPECT_TRUE(contains(m.error(), "tensor \"model.embed_tokens.weight\": row " + std::to_string(bad) +
                                        " is out of range (the tensor has 5 rows)"))
        << m.error();
  }
  auto none = f->rows(*t, {});
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_EQ(none->rows(), 0);
  EXPECT_EQ(none->cols(), 4);
}

// A TensorInfo that does not describe this file's bytes is refused, never read.
TEST(Safetensors, RowsRefusesForeignTensorInfo) {
  auto f = SafetensorsFile::open(data("st_bf16.safetensors"));
  ASSERT_TRUE(f.ok()) << f.error();
  TensorInfo t{"forged", "F32", {1000, 4}, 0, 16000};
  const std::vector<std::int64_t> ids = {999};
  auto m = f->rows(t, ids);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(contains(m.error(), "does not describe bytes of this file")) << m.error();
  const TensorInfo one_d{"v", "F32", {4}, 0, 16};
  EXPECT_FALSE(f->rows(one_d, ids).ok());
}

TEST(Safetensors, ChoosesTheTensorByNameOrShape) {
  auto f32 = SafetensorsFile::open(data("st_f32.safetensors"));
  const TensorInfo* head = embedding(f32, "lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->name, "lm_head.weight");
  auto norm = f32->embedding_tensor("model.norm.weight");
  ASSERT_FALSE(norm.ok());
  EXPECT_TRUE(contains(norm.error(), "\"model.norm.weight\" has shape [4]; embeddings need a 2-D tensor"))
      << norm.error();
  auto absent = f32->embedding_tensor("wte");
  ASSERT_FALSE(absent.ok());
  EXPECT_TRUE(contains(absent.error(),
                       "no tensor is named \"wte\"; the 2-D tensors are: "
                       "model.embed_tokens.weight [5, 4] F32, lm_head.weight [2, 4] F32"))
      << absent.error();

  // Without embed_tokens, the only 2-D tensor is chosen.
  auto only = SafetensorsFile::open(data("st_only_2d.safetensors"));
  const TensorInfo* wte = embedding(only);
  ASSERT_NE(wte, nullptr);
  EXPECT_EQ(wte->name, "wte");
  const std::vector<std::int64_t> ids = {2};
  auto row = only->rows(*wte, ids);
  ASSERT_TRUE(row.ok()) << row.error();
  EXPECT_EQ(row->row(0), (RowVector(2) << 4.0f, 5.0f).finished());
}

TEST(Safetensors, TwoCandidatesWithoutEmbedTokensAreListed) {
  auto f = SafetensorsFile::open(data("st_two_2d.safetensors"));
  ASSERT_TRUE(f.ok()) << f.error();
  auto t = f->embedding_tensor("");
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.error(),
                       "no tensor name contains \"embed_tokens\" and there are 2 2-D "
                       "tensors; choose one by name: a.weight [2, 2] F32, b.weight [2, 2] F32"))
      << t.error();
  EXPECT_NE(embedding(f, "b.weight"), nullptr);
}

TEST(Safetensors, UnsupportedDtypeOpensButCannotBeRead) {
  auto f = SafetensorsFile::open(data("st_unsupported.safetensors"));
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_EQ(f->tensors().size(), 3u);
  EXPECT_EQ(f->unsupported_tensors(), (std::vector<std::string>{"model.embed_tokens.weight", "packed"}));
  auto t = f->embedding_tensor("");
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(contains(t.error(), "\"model.embed_tokens.weight\" has dtype I32, which is not supported")) << t.error();
  const std::vector<std::int64_t> ids = {0};
  auto m = f->rows(f->tensors()[0], ids);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(contains(m.error(), "has dtype I32")) << m.error();
  // The supported tensor beside it is readable.
  const TensorInfo* other = embedding(f, "other");
  ASSERT_NE(other, nullptr);
  auto row = f->rows(*other, ids);
  ASSERT_TRUE(row.ok()) << row.error();
  EXPECT_EQ(row->row(0), (RowVector(2) << 0.0f, 1.0f).finished());
  EXPECT_TRUE(safetensors_dtype_supported("BF16"));
  EXPECT_FALSE(safetensors_dtype_supported("F64"));
}

TEST(Safetensors, NonFiniteValueNamesTensorAndRow) {
  auto f = SafetensorsFile::open(data("st_nonfinite_bf16.safetensors"));
  const TensorInfo* t = embedding(f);
  ASSERT_NE(t, nullptr);
  const std::vector<std::int64_t> row0 = {0};
  auto good = f->rows(*t, row0);
  ASSERT_TRUE(good.ok()) << good.error();
  EXPECT_EQ(good->row(0), (RowVector(2) << 1.0f, 2.0f).finished());
  const std::vector<std::int64_t> both = {0, 1};
  auto bad = f->rows(*t, both);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.error(),
                       "tensor \"model.embed_tokens.weight\", row 1: non-finite value "
                       "(inf or nan) in column 1"))
      << bad.error();
}

TEST(Safetensors, MaliciousFilesAreClearErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad_short.safetensors", "too short for a safetensors file (5 bytes"},
      {"bad_header_past_end.safetensors", "the header length 1000 runs past the end of the file (96 bytes)"},
      {"bad_header_huge.safetensors", "the header length 200000000 exceeds the 100 MB limit"},
      {"bad_json.safetensors", "the header is not valid JSON"},
      {"bad_not_object.safetensors", "the header is not a JSON object"},
      {"bad_offsets_past_end.safetensors",
       "tensor \"t\": \"data_offsets\" [0, 16] run past the end of the data (8 bytes"},
      {"bad_overlap.safetensors", "tensors \"a\" [0, 16) and \"b\" [8, 24) overlap"},
      {"bad_size_mismatch.safetensors",
       "tensor \"t\": shape [2, 3] of F32 needs 24 bytes, but \"data_offsets\" give 16"},
      {"bad_negative_shape.safetensors", "\"shape\" [-2,-2] holds something other than a non-negative integer"},
      {"bad_float_shape.safetensors", "\"shape\" [2.0,2] holds something other than a non-negative integer"},
      {"bad_begin_after_end.safetensors", "\"data_offsets\" [16, 0] ends before it begins"},
      {"bad_shape_overflow.safetensors", "needs too many bytes"},
      {"bad_missing_offsets.safetensors", "lacks one of \"dtype\", \"shape\", \"data_offsets\""},
      {"bad_metadata.safetensors", "\"__metadata__\" is not an object of strings"},
      {"bad_duplicate.safetensors", "the header names \"t\" more than once"},
  };
  for (const auto& [file, message] : cases) {
    const std::string e = open_error(file);
    EXPECT_TRUE(contains(e, message)) << file << ": " << e;
  }
}

TEST(Safetensors, MissingFileAndFolderAreErrors) {
  EXPECT_TRUE(contains(open_error("no_such.safetensors"), "no such file"));
  auto dir = SafetensorsFile::open(data(""));
  ASSERT_FALSE(dir.ok());
  EXPECT_TRUE(contains(dir.error(), "is a directory")) << dir.error();
  const poslab::test_support::TempFolder tmp("empty");
  const auto empty = tmp / "empty.safetensors";
  { std::ofstream(empty, std::ios::binary); }
  auto e = SafetensorsFile::open(empty);
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(contains(e.error(), "too short for a safetensors file (0 bytes")) << e.error();
}

// Every prefix of a good file is malformed (the data ends early) and must be reported.
TEST(Safetensors, EveryTruncationIsAnError) {
  for (const char* name : {"st_f32.safetensors", "st_f16.safetensors"}) {
    const std::string full = bytes_of(name);
    ASSERT_TRUE(SafetensorsFile::parse(full, name).ok());
    for (std::size_t n = 0; n < full.size(); ++n)
      EXPECT_FALSE(SafetensorsFile::parse(full.substr(0, n), name).ok()) << name << " cut at " << n;
  }
}

namespace {

// One random change: a byte overwritten, a cut, an insertion, a digit of the JSON changed (to
// reach the checks behind the parser) or a new header length.
std::string mutate(const std::string& good, Rng& rng) {
  std::string m = good;
  switch (rng.next_u64() % 5) {
    case 0:
      for (int f = 0, n = 1 + static_cast<int>(rng.next_u64() % 4); f < n; ++f)
        m[rng.next_u64() % m.size()] = static_cast<char>(rng.next_u64() & 0xFF);
      break;
    case 1:
      m.resize(rng.next_u64() % m.size());
      break;
    case 2:
      m.insert(rng.next_u64() % (m.size() + 1),
               std::string(1 + rng.next_u64() % 8, static_cast<char>(rng.next_u64() & 0xFF)));
      break;
    case 3: {
      std::vector<std::size_t> digits;
      const std::size_t header_end =
          std::min<std::size_t>(m.size(), 8 + static_cast<unsigned char>(m[0]) +
                                              256 * static_cast<std::size_t>(static_cast<unsigned char>(m[1])));
      for (std::size_t i = 8; i < header_end; ++i)
        if (m[i] >= '0' && m[i] <= '9') digits.push_back(i);
      const char replacement = rng.next_u64() % 8 == 0 ? '-' : static_cast<char>('0' + rng.next_u64() % 10);
      if (!digits.empty()) m[digits[rng.next_u64() % digits.size()]] = replacement;
      break;
    }
    default:
      m[rng.next_u64() % 8] = static_cast<char>(rng.next_u64() & 0xFF);
      break;
  }
  return m;
}

// Whatever came back is usable without crashing: every row of every readable 2-D tensor.
void exercise(const Result<SafetensorsFile>& f, const std::string& name) {
  if (!f.ok()) {
    EXPECT_EQ(f.error().rfind(name + ": ", 0), 0u) << f.error();
    return;
  }
  (void)f->embedding_tensor("");
  (void)f->unsupported_tensors();
  for (const TensorInfo& t : f->tensors()) {
    if (t.shape.size() != 2) continue;
    std::vector<std::int64_t> ids;
    for (std::int64_t r = 0; r < std::min<std::int64_t>(t.shape[0], 64); ++r) ids.push_back(r);
    ids.push_back(t.shape[0]);  // one past the end: always an error
    auto m = f->rows(t, ids);
    EXPECT_FALSE(m.ok());
    ids.pop_back();
    auto ok = f->rows(t, ids);
    if (ok.ok()) {
      EXPECT_EQ(ok->rows(), static_cast<Eigen::Index>(ids.size()));
      EXPECT_TRUE(ok->allFinite());
    }
  }
}

}  // namespace

TEST(Safetensors, RandomMutationsNeverCrash) {
  Rng rng(90210);
  int opened = 0;
  for (const char* name : {"st_f32.safetensors", "st_bf16.safetensors"}) {
    const std::string good = bytes_of(name);
    for (int trial = 0; trial < 1000; ++trial) {
      auto f = SafetensorsFile::parse(mutate(good, rng), "fuzz.safetensors");
      opened += f.ok() ? 1 : 0;
      exercise(f, "fuzz.safetensors");
    }
  }
  EXPECT_GT(opened, 0);

  // A few through the file system too, for the mapping's sake.
  const poslab::test_support::TempFolder tmp("fuzz");
  const auto path = tmp / "fuzz.safetensors";
  const std::string good = bytes_of("st_f16.safetensors");
  for (int trial = 0; trial < 50; ++trial) {
    const std::string m = mutate(good, rng);
    { std::ofstream(path, std::ios::binary | std::ios::trunc).write(m.data(), static_cast<std::streamsize>(m.size())); }
    exercise(SafetensorsFile::open(path), path.string());
  }
}

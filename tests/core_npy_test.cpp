// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// The .npy reader on files written by NumPy (tests/data/make_npy.py): every version and dtype,
// then malformed files and every prefix and byte flip of a good one (no crash, a clear error).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "core/formats/formats.hpp"
#include "core/formats/npy.hpp"
#include "base/random.hpp"

using namespace poslab;

namespace {

std::filesystem::path data(const std::string& name) { return std::filesystem::path(POSLAB_TEST_DATA) / name; }

std::string bytes_of(const std::string& name) {
  std::ifstream in(data(name), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// m34[r, c] = (r·4 + c)·0.25 − 1.5, exact in every dtype (make_npy.py).
Matrix m34() {
  Matrix m(3, 4);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) m(r, c) = static_cast<float>((r * 4 + c) * 0.25 - 1.5);
  return m;
}

// The float16 file: signed zeros, subnormals, the smallest normal, 1/3 and ±65504 (make_npy.py).
Matrix half_values() {
  Matrix m(3, 3);
  m << 0.0f, -0.0f, std::ldexp(1.0f, -24), -3 * std::ldexp(1.0f, -24), 1023 * std::ldexp(1.0f, -24),
      std::ldexp(1.0f, -14), 0.333251953125f, 65504.0f, -65504.0f;
  return m;
}

// Loads a file that must fail and returns the message (which must name the file).
std::string load_error(const std::string& name) {
  auto m = load_npy_matrix(data(name));
  EXPECT_FALSE(m.ok()) << name;
  if (m.ok()) return "";
  EXPECT_NE(m.error().find(name), std::string::npos) << m.error();
  return m.error();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(Npy, ReadsEveryVersionAndFloatDtype) {
  for (const char* name : {"good_v1_f4.npy", "good_v1_f8.npy", "good_v2_f4.npy", "good_v3_f8.npy"}) {
    auto m = load_npy_matrix(data(name));
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(*m, m34()) << name;
  }
}

TEST(Npy, Float16IsExactIncludingSubnormalsAndSignedZero) {
  for (const char* name : {"good_v1_f2.npy", "good_v3_f2.npy"}) {
    auto m = load_npy_matrix(data(name));
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(*m, half_values()) << name;
    EXPECT_TRUE(std::signbit((*m)(0, 1))) << name;
    EXPECT_FALSE(std::signbit((*m)(0, 0))) << name;
  }
}

TEST(Npy, MalformedFilesGiveClearErrors) {
  EXPECT_TRUE(contains(load_error("bad_truncated.npy"), "truncated"));
  EXPECT_TRUE(contains(load_error("bad_extra_bytes.npy"), "52 bytes follow the header"));
  EXPECT_TRUE(contains(load_error("bad_magic.npy"), "not a NumPy .npy file"));
  EXPECT_TRUE(contains(load_error("bad_fortran.npy"), "Fortran"));
  EXPECT_TRUE(contains(load_error("bad_3d.npy"), "shape (2, 3, 4); expected a 2-D matrix"));
  EXPECT_TRUE(contains(load_error("bad_1d.npy"), "shape (5,); expected a 2-D matrix"));
  EXPECT_TRUE(contains(load_error("bad_int32.npy"), "dtype '<i4' is not supported"));
  EXPECT_TRUE(contains(load_error("bad_big_endian.npy"), "big-endian"));
  EXPECT_TRUE(contains(load_error("bad_header_past_end.npy"), "runs past the end of the file"));
  EXPECT_TRUE(contains(load_error("bad_f2_inf.npy"), "non-finite value (inf or nan) at row 0, column 1"));
  EXPECT_TRUE(contains(load_error("bad_f4_nan.npy"), "non-finite value (inf or nan) at row 1, column 0"));
  EXPECT_TRUE(contains(load_error("bad_header_syntax.npy"), "malformed .npy header"));
  EXPECT_TRUE(contains(load_error("bad_missing_key.npy"), "lacks one of"));
}

TEST(Npy, MissingFileAndDirectoryAreErrors) {
  EXPECT_TRUE(contains(load_error("no_such_file.npy"), "no such file"));
  auto dir = load_npy_matrix(std::filesystem::path(POSLAB_TEST_DATA));
  ASSERT_FALSE(dir.ok());
  EXPECT_TRUE(contains(dir.error(), "directory"));
}

TEST(Npy, HandWrittenHeaders) {
  auto file = [](std::string header, std::string body, char version = 1) {
    std::string len;
    const std::size_t n = header.size();
    for (std::size_t k = 0; k < (version == 1 ? 2u : 4u); ++k) len += static_cast<char>((n >> (8 * k)) & 0xFF);
    return std::string("\x93NUMPY") + version + '\0' + len + header + body;
  };
  const std::string two_floats("\0\0\x80\x3f\0\0\0\x40", 8);  // 1.0f, 2.0f
  // Double quotes, no trailing comma, keys in another order: still a valid dict.
  auto ok = parse_npy_matrix(file("{\"shape\": (1, 2), \"fortran_order\": False, \"descr\": \"<f4\"}\n", two_floats), "x");
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ((*ok)(0, 1), 2.0f);
  auto v2 = parse_npy_matrix(file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }", two_floats, 2), "x");
  ASSERT_TRUE(v2.ok()) << v2.error();
  EXPECT_EQ((*v2)(1, 0), 2.0f);

  auto err = [&](const std::string& header, const std::string& part, char version = 1) {
    auto m = parse_npy_matrix(file(header, two_floats, version), "name.npy");
    ASSERT_FALSE(m.ok()) << header;
    EXPECT_TRUE(contains(m.error(), "name.npy: ")) << m.error();
    EXPECT_TRUE(contains(m.error(), part)) << m.error();
  };
  err("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), 'extra': 1}", "unexpected key 'extra'");
  err("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1, 2)}", "appears twice");
  err("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1, 2)}", "structured");
  err("{'descr': '<f4', 'fortran_order': maybe, 'shape': (1, 2)}", "True or False");
  err("{'descr': '<f4', 'fortran_order': False, 'shape': (1, -2)}", "non-negative integer");
  err("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 2)}", "too large");
  err("{'descr': '<f4', 'fortran_order': False, 'shape': ()}", "shape (); expected a 2-D matrix");
  err("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2)}", "empty");
  err("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 2)}", "truncated");
  err("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2)} trailing", "after the header dict");
  err("{'descr': '<f4, 'fortran_order': False, 'shape': (1, 2)}", "header");
  err("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2)}", "version 4.0", 4);
  err("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 2)}", "'<u2' is not supported");
  // Huge shapes must not overflow the size check.
  err("{'descr': '<f8', 'fortran_order': False, 'shape': (2147483647, 2147483647)}", "bytes follow the header");
}

TEST(Npy, HeaderLengthLimitAndShortPrefixes) {
  std::string v2 = std::string("\x93NUMPY\x02", 7) + std::string("\0\xff\xff\xff\x7f", 5);
  auto big = parse_npy_matrix(v2, "big.npy");
  ASSERT_FALSE(big.ok());
  EXPECT_TRUE(contains(big.error(), "100 MB")) << big.error();
  EXPECT_FALSE(parse_npy_matrix("", "e").ok());
  EXPECT_FALSE(parse_npy_matrix(std::string("\x93NUMPY\x02\0\x01", 9), "e").ok());
}

TEST(Npy, F64OutsideFloatRangeIsAnError) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }";
  std::string bytes = std::string("\x93NUMPY\x01\0", 8) + static_cast<char>(header.size()) + '\0' + header;
  const double huge = 1e300;
  bytes.append(reinterpret_cast<const char*>(&huge), 8);  // the test host is little-endian
  auto m = parse_npy_matrix(bytes, "huge.npy");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(contains(m.error(), "value 1e+300 does not fit a float32 at row 0, column 0")) << m.error();
}

// Every prefix of a good file is malformed (truncated) and must be reported, never read past.
TEST(Npy, EveryTruncationIsAnError) {
  for (const char* name : {"good_v1_f2.npy", "good_v2_f4.npy", "good_v3_f8.npy"}) {
    const std::string full = bytes_of(name);
    ASSERT_TRUE(parse_npy_matrix(full, name).ok());
    for (std::size_t n = 0; n < full.size(); ++n) {
      // A heap copy of exactly n bytes, so that a read past the end is visible to sanitizers.
      const std::string prefix = full.substr(0, n);
      EXPECT_FALSE(parse_npy_matrix(prefix, name).ok()) << name << " cut at " << n;
    }
  }
}

// Random byte flips of good files: anything may come back, but no crash and errors name the file.
TEST(Npy, ByteFlipsNeverCrash) {
  Rng rng(2024);
  for (const char* name : {"good_v1_f4.npy", "good_v3_f2.npy"}) {
    const std::string full = bytes_of(name);
    for (int trial = 0; trial < 3000; ++trial) {
      std::string mutated = full;
      const int flips = 1 + static_cast<int>(rng.next_u64() % 4);
      for (int f = 0; f < flips; ++f)
        mutated[rng.next_u64() % mutated.size()] = static_cast<char>(rng.next_u64() & 0xFF);
      auto m = parse_npy_matrix(mutated, "fuzz.npy");
      if (!m.ok()) {
        EXPECT_EQ(m.error().rfind("fuzz.npy: ", 0), 0u) << m.error();
      }
    }
  }
}

// poslab info reports the file's own element type, not the float32 it was read into.
TEST(Npy, ATableKnowsTheTypeItsFileStored) {
  for (const auto& [name, type] : {std::pair{"good_v1_f2.npy", "float16"}, std::pair{"good_v1_f4.npy", "float32"},
                                   std::pair{"good_v3_f8.npy", "float64"}}) {
    std::string dtype;
    ASSERT_TRUE(load_npy_matrix(data(name), &dtype).ok());
    EXPECT_EQ(dtype, type);
    auto table = load_npy_embeddings(data(name));
    ASSERT_TRUE(table.ok()) << table.error();
    EXPECT_EQ(table->dtype(), type) << name;
  }
}

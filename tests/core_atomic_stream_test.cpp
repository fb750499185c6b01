// Streamed, atomic file writing, and the attention CSV written in blocks: the same text as one
// format_float per field.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>
#include <vector>

#include "base/atomic_stream.hpp"
#include "core/export_data.hpp"
#include "temp_folder.hpp"

using namespace poslab;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST(AtomicStream, WritesReplacesAndLeavesNothingOnFailure) {
  const poslab::test_support::TempFolder scratch("stream");
  const fs::path file = scratch / "out.csv";
  ASSERT_TRUE(write_stream_atomic(file, [](std::ostream& out) { out << "first\n"; }).ok());
  EXPECT_EQ(read_all(file), "first\n");
  std::string big(3 << 20, 'x');  // more than the stream's buffer
  ASSERT_TRUE(write_stream_atomic(file, [&](std::ostream& out) { out << big; }).ok());
  EXPECT_EQ(read_all(file), big);
  // A stream that fails keeps the old file and removes the temporary one.
  ASSERT_TRUE(write_stream_atomic(file, [](std::ostream& out) { out << "short\n"; }).ok());
  const Status failed = write_stream_atomic(file, [](std::ostream& out) { out.setstate(std::ios::badbit); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(read_all(file), "short\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(file.parent_path())) ++entries;
  EXPECT_EQ(entries, 1u);
  const Status missing = write_stream_atomic(scratch / "no" / "such.csv", [](std::ostream&) {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("does not exist"), std::string::npos) << missing.error();
}

// Two fetches of one model write its refs/main at the same moment from two threads of one process.
// Each write has a temporary file of its own, so neither renames the other's away.
TEST(AtomicStream, ThreadsWritingOneFileAtOnceAllSucceed) {
  const poslab::test_support::TempFolder scratch("stream");
  const fs::path file = scratch / "refs-main";
  constexpr int kThreads = 4, kWrites = 200;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < kWrites && errors[t].empty(); ++k)
        if (Status s = write_stream_atomic(file, [&](std::ostream& out) { out << "commit-" << t << "\n"; }); !s.ok())
          errors[t] = s.error();
    });
  for (auto& thread : threads) thread.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  const std::string last = read_all(file);
  EXPECT_TRUE(last.rfind("commit-", 0) == 0 && last.size() == 9) << last;
  for (const auto& entry : fs::directory_iterator(file.parent_path()))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
}

TEST(AttentionCsv, BlocksGiveTheSameTextAsAFieldAtATime) {
  Results r;
  const int T = 70;  // rows of more than one block
  for (int t = 0; t < T; ++t) r.tokens.push_back(Token{t % 7 == 3 ? "a,b" : "w" + std::to_string(t), t, false, false});
  r.key_tokens = r.tokens;
  for (int h = 0; h < 2; ++h) {
    Matrix S(T, T), A(T, T);
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) {
        S(i, j) = j > i ? -std::numeric_limits<float>::infinity() : std::sin(0.37f * static_cast<float>(i * T + j + h));
        A(i, j) = j > i ? 0.0f : 1.0f / static_cast<float>(i + 1 + h);
      }
    r.attention.scores.push_back(S);
    r.attention.weights.push_back(A);
  }
  std::ostringstream fast;
  write_attention_csv(fast, r);
  std::ostringstream slow;
  slow << "head,query,key,query_token,key_token,score,weight\n";
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j)
        slow << h << ',' << i << ',' << j << ',' << csv_field(r.tokens[static_cast<std::size_t>(i)].text) << ','
             << csv_field(r.tokens[static_cast<std::size_t>(j)].text) << ','
             << format_float(r.attention.scores[static_cast<std::size_t>(h)](i, j)) << ','
             << format_float(r.attention.weights[static_cast<std::size_t>(h)](i, j)) << '\n';
  EXPECT_EQ(fast.str(), slow.str());
  EXPECT_NE(fast.str().find(",-inf,0\n"), std::string::npos);
  EXPECT_NE(fast.str().find("\"a,b\""), std::string::npos);
}

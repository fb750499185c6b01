// Parser test: also built alone and run under ASan and UBSan (parser_tests in tests/CMakeLists.txt).
// Loading on a thread: the result arrives once, progress is reported, and Cancel stops a load.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

#include "core/async_load.hpp"
#include "core/formats/formats.hpp"
#include "temp_folder.hpp"

using namespace poslab;

namespace {

// A text table of `words` × 50 dims, in a folder of this process's own: ctest runs each test in a
// process of its own, in parallel, and rewriting a file that another test has mapped while it
// parses kills that test with SIGBUS.
struct BigTable {
  poslab::test_support::TempFolder folder{"async"};
  std::string path = (folder / "table.txt").string();
  explicit BigTable(int words) {
    std::ofstream out(path);
    for (int w = 0; w < words; ++w) {
      out << "w" << w;
      for (int j = 0; j < 50; ++j) out << ' ' << (w % 97 + j) * 0.001;
      out << '\n';
    }
  }
};

Result<EmbeddingTable> wait_for(AsyncLoad& load) {
  for (int k = 0; k < 6000; ++k) {
    if (auto r = load.take()) return std::move(*r);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Error{"the load never finished"};
}

}  // namespace

TEST(AsyncLoad, DeliversTheTableOnce) {
  const BigTable file(2000);
  const std::string& path = file.path;
  AsyncLoad load;
  load.start(path, "", "");
  auto table = wait_for(load);
  ASSERT_TRUE(table.ok()) << table.error();
  EXPECT_EQ(table->size(), 2000);
  EXPECT_EQ(table->dim(), 50);
  EXPECT_FALSE(load.take().has_value());  // once
  EXPECT_FALSE(load.running());
}

TEST(AsyncLoad, ReportsErrorsAndProgress) {
  AsyncLoad load;
  load.start("/no/such/file.txt", "", "");
  auto missing = wait_for(load);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("no such file"), std::string::npos);

  const BigTable file(60000);
  const std::string& path = file.path;  // about 20 MB
  LoadControl control;
  auto table = load_embeddings_file(path, {}, {}, &control);
  ASSERT_TRUE(table.ok());
  EXPECT_DOUBLE_EQ(control.fraction(), 1.0);
}

TEST(AsyncLoad, CancelStopsTheLoadAndKeepsNothing) {
  const BigTable file(60000);
  const std::string& path = file.path;
  LoadControl control;
  control.cancel();  // cancelled before the first chunk: no table comes back
  auto table = load_embeddings_file(path, {}, {}, &control);
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.error().find("cancelled"), std::string::npos);

  AsyncLoad load;
  load.start(path, "", "");
  load.cancel();
  auto r = wait_for(load);
  // Either the cancel came in time, or the load had already finished: never a half table.
  if (r.ok()) EXPECT_EQ(r->size(), 60000);
  else EXPECT_NE(r.error().find("cancelled"), std::string::npos) << r.error();
}

TEST(AsyncLoad, RateLimitShowsProgressAndLetsCancelInMidLoad) {
  const BigTable file(60000);
  const std::string& path = file.path;  // about 20 MB: 2 s at 10 MB/s
  AsyncLoad load;
  load.limit_rate(10e6);
  load.start(path, "", "");
  double seen = 0.0;
  for (int k = 0; k < 400 && !(seen > 0.0 && seen < 1.0); ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    seen = load.progress();
  }
  EXPECT_GT(seen, 0.0);  // the bar moves …
  EXPECT_LT(seen, 1.0);  // … before the end
  EXPECT_TRUE(load.running());
  load.cancel();  // in mid-load, for certain: the rate limit holds the parse back
  auto r = wait_for(load);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("cancelled"), std::string::npos) << r.error();

  load.limit_rate(0.0);  // no limit: the same file loads whole
  load.start(path, "", "");
  auto table = wait_for(load);
  ASSERT_TRUE(table.ok()) << table.error();
  EXPECT_EQ(table->size(), 60000);
}

TEST(AsyncLoad, AFileCutShortWhileItLoadsIsAnErrorNotACrash) {
  // Text files are read piece by piece, not mapped: a mapping touched past the new end of a
  // truncated file would kill the process with SIGBUS.
  const BigTable file(60000);  // about 20 MB: 2 s at 10 MB/s
  AsyncLoad load;
  load.limit_rate(10e6);
  load.start(file.path, "", "");
  for (int k = 0; k < 400 && !(load.progress() > 0.0); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(load.running());
  std::filesystem::resize_file(file.path, std::filesystem::file_size(file.path) / 3);
  auto r = wait_for(load);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("became shorter while it was read"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find(file.path), std::string::npos) << r.error();
}

TEST(AsyncLoad, AFileRewrittenWhileItLoadsIsNotKept) {
  const BigTable file(60000);
  AsyncLoad load;
  load.limit_rate(10e6);
  load.start(file.path, "", "");
  for (int k = 0; k < 400 && !(load.progress() > 0.0); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(load.running());
  {  // the same size, other bytes, a new modification time
    std::fstream out(file.path, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(0);
    out << "x";
  }
  auto r = wait_for(load);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("changed while it was read"), std::string::npos) << r.error();
}

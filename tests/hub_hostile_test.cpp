// The Hub as an adversary (issue 36 §3), against tests/hub/fake_hub.py on 127.0.0.1: a CDN that
// streams past the size it announced, a token that would smuggle a header, a metadata answer
// hundreds of kB long, a repository with weights PosLab never reads, bytes whose SHA-256 is not
// the announced one, and every wait (another process's lock, a Retry-After, a silent body) said
// while it lasts. Each test waits for a condition, never for a fixed time.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include "hub/http.hpp"
#include "hub/hub_client.hpp"
#include "hub/sha256.hpp"
#include "hub_support.hpp"
#include "temp_folder.hpp"

namespace poslab::hub {
namespace {

namespace fs = std::filesystem;
using test_support::FakeHub;

void write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(g() & 0xff);
  return s;
}

fs::path model_folder(const fs::path& dir, unsigned seed) {
  write(dir / "config.json", "{}");
  write(dir / "tokenizer.json", "{\"model\": {\"type\": \"BPE\"}}");
  write(dir / "model.safetensors", random_bytes(70000, seed));
  return dir;
}

struct Hub {
  test_support::TempFolder dir;  // first made, last removed: the Hub above it stops first
  FakeHub fake;
  HubSettings settings;
  Hub(const std::string& name, std::vector<std::string> options = {}) : dir("hub-hostile-" + name), fake(dir / "hub", std::move(options)) {
    settings.endpoint = fake.endpoint();
    settings.cache = HubCache(dir / "cache");
  }
  ModelName name(const std::string& text) const { return *parse_model_name(text); }
  int requests(const std::string& server, const std::string& method) const {
    int n = 0;
    for (const auto& r : fake.requests()) n += r["server"] == server && r["method"] == method;
    return n;
  }
};

// What a fetch said it waited for, gathered from its threads.
struct Waits {
  std::mutex m;
  std::vector<std::string> said;
  std::function<void(const std::string&)> callback() {
    return [this](const std::string& what) {
      std::lock_guard lock(m);
      said.push_back(what);
    };
  }
  bool any_with(const std::string& text) {
    std::lock_guard lock(m);
    for (const auto& s : said)
      if (s.find(text) != std::string::npos) return true;
    return false;
  }
};

// A CDN that announces 70 kB and streams 30 MB more: writing stops at the announced size (an
// endless stream would fill the disk), and nothing of it is kept.
TEST(HubHostile, AStreamLongerThanAnnouncedStopsAtTheAnnouncedSize) {
  Hub h("oversize", {"--oversize", "30000000"});
  h.fake.publish("org/tiny", model_folder(h.dir / "v1", 1));
  std::uint64_t most = 0, total = 0;
  FetchControl control;
  control.progress = [&](const DownloadProgress& p) { most = std::max(most, p.done_bytes), total = p.total_bytes; };
  auto fetched = fetch_model(h.name("org/tiny"), h.settings, control);
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().find("more than the 70000 bytes announced"), std::string::npos) << fetched.error();
  EXPECT_LE(most, total) << "bytes past the announced size were written";
  for (const auto& e : fs::recursive_directory_iterator(h.settings.cache.root())) {
    if (e.is_regular_file()) {
      EXPECT_LE(e.file_size(), 70000u) << e.path();
    }
  }
}

// $HF_TOKEN holding CR LF would end the Authorization header and start one of its own: refused
// before any request is made, naming where the token came from.
TEST(HubHostile, ATokenWithALineBreakIsRefusedAndNeverSent) {
  Hub h("token");
  h.fake.publish("org/tiny", model_folder(h.dir / "v1", 2));
  ::setenv("HF_TOKEN", "hf_abc\r\nX-Injected: yes", 1);
  HubSettings from_env = HubSettings::from_environment();
  ::unsetenv("HF_TOKEN");
  EXPECT_TRUE(from_env.token.empty());
  EXPECT_NE(from_env.token_problem.find("$HF_TOKEN"), std::string::npos) << from_env.token_problem;
  from_env.endpoint = h.settings.endpoint;
  from_env.cache = h.settings.cache;
  auto refused = fetch_model(h.name("org/tiny"), from_env);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("line break"), std::string::npos) << refused.error();
  EXPECT_EQ(h.fake.request_count(), 0u);
  // The HTTP layer refuses it too, whoever builds the request.
  HttpRequest request;
  request.url = h.settings.endpoint + "/api/models/org/tiny/revision/main";
  request.token = "abc\ndef";
  EXPECT_FALSE(http_request(request));
  EXPECT_EQ(h.fake.request_count(), 0u);
}

// A popular model's /api/models answer lists thousands of spaces: hundreds of kB, read whole.
TEST(HubHostile, AMetadataAnswerOfHundredsOfKilobytesIsReadWhole) {
  Hub h("big_api", {"--api-padding", "12000"});
  h.fake.publish("org/tiny", model_folder(h.dir / "v1", 3));
  auto fetched = fetch_model(h.name("org/tiny"), h.settings);
  ASSERT_TRUE(fetched) << fetched.error();
  EXPECT_TRUE(fs::exists(*fetched / "model.safetensors"));
}

// Mistral's repositories hold consolidated.safetensors beside model.safetensors; a repository
// may hold any number of other *.safetensors. Only what a model folder's reader opens is asked for.
TEST(HubHostile, OnlyTheWeightsPosLabReadsAreDownloaded) {
  Hub h("extra");
  const fs::path folder = model_folder(h.dir / "v1", 4);
  write(folder / "consolidated.safetensors", random_bytes(30000, 40));
  write(folder / "model.fp16.safetensors", random_bytes(20000, 41));
  for (int k = 0; k < 40; ++k) write(folder / ("extra-" + std::to_string(k) + ".safetensors"), random_bytes(100, 50 + k));
  h.fake.publish("org/mistral", folder);
  auto fetched = fetch_model(h.name("org/mistral"), h.settings);
  ASSERT_TRUE(fetched) << fetched.error();
  EXPECT_FALSE(fs::exists(*fetched / "consolidated.safetensors"));
  EXPECT_FALSE(fs::exists(*fetched / "model.fp16.safetensors"));
  // The listing, a HEAD for each of the three files, the weights' bytes from the CDN.
  EXPECT_EQ(h.requests("hub", "HEAD"), 3);
  EXPECT_EQ(h.requests("cdn", "GET"), 1);
  EXPECT_LE(h.fake.request_count(), 7u);

  // A sharded model: the index and the shards it names, not the other *.safetensors.
  const fs::path sharded = h.dir / "sharded";
  write(sharded / "config.json", "{}");
  write(sharded / "model-00001-of-00002.safetensors", random_bytes(1000, 60));
  write(sharded / "model-00002-of-00002.safetensors", random_bytes(1000, 61));
  write(sharded / "consolidated.safetensors", random_bytes(3000, 62));
  write(sharded / "model.safetensors.index.json",
        R"({"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})");
  h.fake.publish("org/sharded", sharded);
  auto shards = fetch_model(h.name("org/sharded"), h.settings);
  ASSERT_TRUE(shards) << shards.error();
  EXPECT_TRUE(fs::exists(*shards / "model-00002-of-00002.safetensors"));
  EXPECT_FALSE(fs::exists(*shards / "consolidated.safetensors"));
  for (const auto& r : h.fake.requests()) EXPECT_EQ(r["path"].get<std::string>().find("consolidated"), std::string::npos) << r["path"];
}

// Bytes of the announced length whose SHA-256 is not the one the Hub gave: never kept.
TEST(HubHostile, BytesWhoseSha256IsNotTheAnnouncedOneNeverEnterTheCache) {
  Hub h("sha", {"--corrupt"});
  h.fake.publish("org/tiny", model_folder(h.dir / "v1", 5));
  auto fetched = fetch_model(h.name("org/tiny"), h.settings);
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().find("SHA-256"), std::string::npos) << fetched.error();
  const fs::path blobs = h.settings.cache.repo(h.name("org/tiny")) / "blobs";
  for (const auto& e : fs::directory_iterator(blobs)) EXPECT_NE(e.path().filename().string().size(), 64u) << "kept: " << e.path();
  EXPECT_FALSE(fs::exists(h.settings.cache.repo(h.name("org/tiny")) / "snapshots"));
}

TEST(HubHostile, Sha256OfAFileIsTheKnownDigest) {
  const test_support::TempFolder dir("hub-hostile-digest");
  const fs::path file = dir / "abc";
  write(file, "abc");
  auto digest = sha256_of_file(file);
  ASSERT_TRUE(digest) << digest.error();
  EXPECT_EQ(*digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");  // FIPS 180-2's example
  EXPECT_TRUE(is_sha256(*digest));
}

// Another process holds the blob's lock: the fetch says what it waits for, and goes on once the
// lock is released.
TEST(HubHostile, AHeldLockIsSaidWhileItIsWaitedFor) {
  Hub h("lock");
  const fs::path folder = model_folder(h.dir / "v1", 6);
  h.fake.publish("org/tiny", folder);
  auto digest = sha256_of_file(folder / "model.safetensors");
  ASSERT_TRUE(digest);
  const fs::path lock = h.settings.cache.lock_file(h.name("org/tiny"), *digest);
  fs::create_directories(lock.parent_path());
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  Waits waits;
  FetchControl control;
  control.waiting = waits.callback();
  Result<fs::path> fetched = Error{""};
  std::thread fetching([&] { fetched = fetch_model(h.name("org/tiny"), h.settings, control); });
  while (!waits.any_with("another process")) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(waits.any_with(lock.string()));
  ::flock(fd, LOCK_UN);
  ::close(fd);
  fetching.join();
  ASSERT_TRUE(fetched) << fetched.error();
}

// A Retry-After storm: each wait is said with how long it lasts.
TEST(HubHostile, ARetryAfterIsSaidBeforeItIsWaited) {
  Hub h("retry", {"--unavailable", "1", "--retry-after", "1"});
  h.fake.publish("org/tiny", model_folder(h.dir / "v1", 7));
  Waits waits;
  FetchControl control;
  control.waiting = waits.callback();
  auto fetched = fetch_model(h.name("org/tiny"), h.settings, control);
  ASSERT_TRUE(fetched) << fetched.error();
  EXPECT_TRUE(waits.any_with("answered HTTP 503 (Retry-After: 1); asking again in 1 s")) << (waits.said.empty() ? "" : waits.said[0]);
  EXPECT_TRUE(waits.any_with("for the bytes of model.safetensors"));
}

// A body that stops coming: said while it lasts, and Cancel ends it.
TEST(HubHostile, AStalledBodyIsSaidAndCancelEndsIt) {
  Hub h("stall", {"--stall-after", "1000"});
  h.fake.publish("org/tiny", model_folder(h.dir / "v1", 8));
  Waits waits;
  std::atomic<bool> cancel{false};
  FetchControl control;
  control.cancel = &cancel;
  const auto record = waits.callback();
  control.waiting = [&](const std::string& what) {
    record(what);
    if (what.find("no data from") != std::string::npos) cancel = true;
  };
  auto fetched = fetch_model(h.name("org/tiny"), h.settings, control);
  ASSERT_FALSE(fetched);
  EXPECT_EQ(fetched.error(), "cancelled");
  EXPECT_TRUE(waits.any_with("no data from http://127.0.0.1:" + std::to_string(h.fake.cdn_port())));
}

}  // namespace
}  // namespace poslab::hub

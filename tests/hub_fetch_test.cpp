// Downloads against the small Hub of tests/hub/fake_hub.py on 127.0.0.1: the first download, the
// cache reused (a commit hash: no request; a branch: the one metadata request), a cut connection
// resumed with Range, a new commit fetching only its changed blob, gated models, the token kept
// from another origin, offline mode, tags and commit hashes, names that would leave the cache,
// two downloads of one blob at once, Cancel.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "hub/http.hpp"
#include "hub/hub_client.hpp"
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

std::string read(const fs::path& p) { return test_support::read_whole_file(p); }

// A model folder as a repository holds it: PosLab's files and others it must leave on the Hub.
fs::path model_folder(const fs::path& dir, const std::string& config, unsigned seed) {
  write(dir / "config.json", config);
  write(dir / "tokenizer.json", "{\"model\": {\"type\": \"BPE\"}}");
  write(dir / "model.safetensors", random_bytes(200000, seed));
  write(dir / "pytorch_model.bin", random_bytes(5000, seed + 1));
  write(dir / "README.md", "# a model\n");
  return dir;
}

struct Fixture {
  test_support::TempFolder dir;  // first made, last removed: the Hub above it stops first
  FakeHub hub;
  HubSettings settings;
  Fixture(const std::string& name, std::vector<std::string> options = {})
      : dir("hub-" + name), hub(dir / "hub", std::move(options)) {
    settings.endpoint = hub.endpoint();
    settings.cache = HubCache(dir / "cache");
  }
  ModelName name(const std::string& text) const { return *parse_model_name(text); }
  // Requests made by `f`, as the servers logged them.
  std::vector<nlohmann::json> requests_during(const std::function<void()>& f) const {
    const std::size_t before = hub.request_count();
    f();
    auto all = hub.requests();
    return {all.begin() + static_cast<std::ptrdiff_t>(before), all.end()};
  }
};

int count(const std::vector<nlohmann::json>& log, const std::string& server, const std::string& method) {
  int n = 0;
  for (const auto& r : log) n += r["server"] == server && r["method"] == method;
  return n;
}

TEST(HubFetch, FirstDownloadThenTheCacheAnswers) {
  Fixture f("first");
  ASSERT_TRUE(f.hub.running());
  const std::string commit = f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{\"v\": 1}", 1));
  Result<fs::path> snapshot = Error{""};
  const auto first = f.requests_during([&] { snapshot = fetch_model(f.name("org/tiny"), f.settings); });
  ASSERT_TRUE(snapshot) << snapshot.error();
  EXPECT_EQ(*snapshot, f.settings.cache.snapshot(f.name("org/tiny"), commit));
  EXPECT_EQ(read(*snapshot / "config.json"), "{\"v\": 1}");
  EXPECT_EQ(read(*snapshot / "model.safetensors"), read(f.dir / "v1" / "model.safetensors"));
  EXPECT_FALSE(fs::exists(*snapshot / "pytorch_model.bin"));
  EXPECT_FALSE(fs::exists(*snapshot / "README.md"));
  for (const auto& r : first) {
    const std::string path = r["path"];
    EXPECT_EQ(path.find("pytorch_model.bin"), std::string::npos) << path;
    EXPECT_EQ(path.find("README.md"), std::string::npos) << path;
  }
  EXPECT_EQ(count(first, "cdn", "GET"), 1);  // the safetensors' bytes, from the CDN

  // A branch again: only the metadata request.
  const auto again = f.requests_during([&] { snapshot = fetch_model(f.name("org/tiny"), f.settings); });
  ASSERT_TRUE(snapshot) << snapshot.error();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0]["path"], "/api/models/org/tiny/revision/main");
  // A commit hash: no request at all.
  const auto by_hash = f.requests_during([&] { snapshot = fetch_model(f.name("org/tiny@" + commit), f.settings); });
  ASSERT_TRUE(snapshot) << snapshot.error();
  EXPECT_TRUE(by_hash.empty());
}

TEST(HubFetch, ACutConnectionResumesWithARangeRequest) {
  Fixture f("resume", {"--cut-after", "70000"});
  f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{}", 2));
  auto snapshot = fetch_model(f.name("org/tiny"), f.settings);
  ASSERT_TRUE(snapshot) << snapshot.error();
  EXPECT_EQ(read(*snapshot / "model.safetensors"), read(f.dir / "v1" / "model.safetensors"));
  std::vector<std::string> ranges;
  for (const auto& r : f.hub.requests())
    if (r["server"] == "cdn") ranges.push_back(r["range"].is_null() ? "none" : r["range"].get<std::string>());
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0], "none");
  EXPECT_EQ(ranges[1], "bytes=70000-");
  for (const auto& e : fs::directory_iterator(f.settings.cache.repo(f.name("org/tiny")) / "blobs"))
    EXPECT_EQ(e.path().extension(), "") << "left behind: " << e.path();
}

// A Hub or CDN briefly down (503) is asked again, as huggingface_hub's http_backoff does: the
// metadata and the bytes alike, and the files are whole.
TEST(HubFetch, AServiceBrieflyUnavailableIsAskedAgain) {
  Fixture f("unavailable", {"--unavailable", "2"});
  f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{}", 3));
  auto snapshot = fetch_model(f.name("org/tiny"), f.settings);
  ASSERT_TRUE(snapshot) << snapshot.error();
  EXPECT_EQ(read(*snapshot / "model.safetensors"), read(f.dir / "v1" / "model.safetensors"));
  EXPECT_EQ(read(*snapshot / "config.json"), "{}");
  std::map<std::string, int> asked;  // each method and path: twice refused, then answered
  for (const auto& r : f.hub.requests()) ++asked[r["server"].get<std::string>() + " " + r["method"].get<std::string>() + " " + r["path"].get<std::string>()];
  ASSERT_FALSE(asked.empty());
  for (const auto& [what, n] : asked) EXPECT_EQ(n, 3) << what;
}

// One that stays down is the answer after kHttpAttempts tries: an error naming the status, and
// nothing in the cache under a final name.
TEST(HubFetch, AServiceThatStaysUnavailableIsAnErrorAfterItsAttempts) {
  Fixture f("down", {"--unavailable", "100"});
  f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{}", 4));
  auto snapshot = fetch_model(f.name("org/tiny"), f.settings);
  ASSERT_FALSE(snapshot);
  EXPECT_NE(snapshot.error().find("503"), std::string::npos) << snapshot.error();
  EXPECT_EQ(f.hub.request_count(), static_cast<std::size_t>(kHttpAttempts)) << "the listing, asked kHttpAttempts times";
  EXPECT_FALSE(fs::exists(f.settings.cache.repo(f.name("org/tiny")) / "snapshots"));
}

// The wait between attempts: the server's Retry-After (at most 30 s), else 1, 2, 4, 8, 8 s.
TEST(HubRetry, WaitsWhatTheServerSaysElseDoublesUpToEightSeconds) {
  using std::chrono::milliseconds;
  HttpResponse plain;
  EXPECT_EQ(retry_wait(0, plain), milliseconds(1000));
  EXPECT_EQ(retry_wait(1, plain), milliseconds(2000));
  EXPECT_EQ(retry_wait(2, plain), milliseconds(4000));
  EXPECT_EQ(retry_wait(3, plain), milliseconds(8000));
  EXPECT_EQ(retry_wait(9, plain), milliseconds(8000));
  HttpResponse told;
  told.headers["retry-after"] = "3";
  EXPECT_EQ(retry_wait(0, told), milliseconds(3000));
  told.headers["retry-after"] = "86400";
  EXPECT_EQ(retry_wait(0, told), milliseconds(30000)) << "a day's wait is not waited";
  told.headers["retry-after"] = "Wed, 21 Oct 2026 07:28:00 GMT";
  EXPECT_EQ(retry_wait(1, told), milliseconds(2000)) << "a date: the schedule decides";
  for (long status : {429L, 500L, 502L, 503L, 504L}) EXPECT_TRUE(transient_status(status)) << status;
  for (long status : {200L, 206L, 302L, 401L, 403L, 404L, 416L, 501L}) EXPECT_FALSE(transient_status(status)) << status;
  std::atomic<bool> cancel{true};
  EXPECT_FALSE(wait_unless_cancelled(milliseconds(60000), &cancel)) << "a cancelled wait returns at once";
}

TEST(HubFetch, ANewCommitOnMainFetchesOnlyTheChangedBlob) {
  Fixture f("newcommit");
  const fs::path v1 = model_folder(f.dir / "v1", "{\"v\": 1}", 3);
  const std::string c1 = f.hub.publish("org/tiny", v1);
  ASSERT_TRUE(fetch_model(f.name("org/tiny"), f.settings));
  fs::copy(v1, f.dir / "v2", fs::copy_options::recursive);
  write(f.dir / "v2" / "config.json", "{\"v\": 2}");
  const std::string c2 = f.hub.publish("org/tiny", f.dir / "v2");
  ASSERT_NE(c1, c2);
  Result<fs::path> snapshot = Error{""};
  const auto log = f.requests_during([&] { snapshot = fetch_model(f.name("org/tiny"), f.settings); });
  ASSERT_TRUE(snapshot) << snapshot.error();
  EXPECT_EQ(read(*snapshot / "config.json"), "{\"v\": 2}");
  EXPECT_EQ(read(f.settings.cache.repo(f.name("org/tiny")) / "refs" / "main"), c2);
  EXPECT_EQ(count(log, "cdn", "GET"), 0);  // the weights' blob was there already
  int gets = 0;
  for (const auto& r : log)
    if (r["method"] == "GET" && r["server"] == "hub" && r["path"].get<std::string>().find("/resolve/") != std::string::npos) {
      ++gets;
      EXPECT_NE(r["path"].get<std::string>().find("config.json"), std::string::npos);
    }
  EXPECT_EQ(gets, 1);
  // Both snapshots share the one weights blob.
  EXPECT_EQ(fs::read_symlink(*snapshot / "model.safetensors"),
            fs::read_symlink(f.settings.cache.snapshot(f.name("org/tiny"), c1) / "model.safetensors"));
}

TEST(HubFetch, GatedModelsNameTheirPageAndTheTokenNeverReachesAnotherOrigin) {
  Fixture f("gated", {"--token", "hf_secret_for_tests"});
  f.hub.publish("org/gated", model_folder(f.dir / "v1", "{}", 4), "--gated");
  auto anonymous = fetch_model(f.name("org/gated"), f.settings);
  ASSERT_FALSE(anonymous);
  EXPECT_NE(anonymous.error().find("gated"), std::string::npos) << anonymous.error();
  EXPECT_NE(anonymous.error().find(f.hub.endpoint() + "/org/gated"), std::string::npos) << anonymous.error();
  EXPECT_NE(anonymous.error().find("HF_TOKEN"), std::string::npos) << anonymous.error();
  f.settings.token = "hf_wrong";
  auto wrong = fetch_model(f.name("org/gated"), f.settings);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().find("no access"), std::string::npos) << wrong.error();
  EXPECT_EQ(wrong.error().find("hf_wrong"), std::string::npos) << "the token is never printed";
  EXPECT_FALSE(fs::exists(f.settings.cache.repo(f.name("org/gated")) / "blobs"));

  f.settings.token = "hf_secret_for_tests";
  auto granted = fetch_model(f.name("org/gated"), f.settings);
  ASSERT_TRUE(granted) << granted.error();
  int hub_with_token = 0, cdn = 0;
  for (const auto& r : f.hub.requests()) {
    if (r["server"] == "cdn") {
      ++cdn;
      EXPECT_TRUE(r["authorization"].is_null()) << "the CDN (another port) got " << r["authorization"];
    } else if (r["authorization"] == "Bearer hf_secret_for_tests") {
      ++hub_with_token;
    }
  }
  EXPECT_EQ(cdn, 1);
  EXPECT_GE(hub_with_token, 3);  // the metadata and each file's HEAD
}

// The HTTP layer itself: a redirect to another port is another origin, and the token stays
// behind for good, whatever the caller does with the answer.
TEST(HubFetch, ARedirectToAnotherPortNeverCarriesTheToken) {
  Fixture f("redirect");
  f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{}", 13));
  HttpRequest request;
  request.url = f.hub.endpoint() + "/org/tiny/resolve/main/model.safetensors";  // 302 to the CDN's port
  request.token = "hf_must_stay_home";
  std::string body;
  request.sink = [&](std::string_view bytes) { return body.append(bytes), true; };
  auto response = http_request(request);
  ASSERT_TRUE(response) << response.error();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(body, read(f.dir / "v1" / "model.safetensors"));
  EXPECT_NE(url_origin(response->url), url_origin(request.url));
  const auto log = f.hub.requests();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0]["server"], "hub");
  EXPECT_EQ(log[0]["authorization"], "Bearer hf_must_stay_home");
  EXPECT_EQ(log[1]["server"], "cdn");
  EXPECT_TRUE(log[1]["authorization"].is_null()) << log[1]["authorization"];
  EXPECT_EQ(url_origin("http://127.0.0.1:8000/a"), "http://127.0.0.1:8000");
  EXPECT_EQ(url_origin("HTTPS://Huggingface.co/x"), "https://huggingface.co:443");
  EXPECT_NE(url_origin("http://127.0.0.1:8000/"), url_origin("http://127.0.0.1:8001/"));
}

// A sharded checkpoint (the Qwen2 reference: an index and two shards): the index and every shard,
// the shards at once from the CDN.
TEST(HubFetch, AShardedModelBringsItsIndexAndEveryShard) {
  Fixture f("sharded");
  const fs::path qwen2 = fs::path(POSLAB_MODEL_REFERENCE) / "qwen2";
  f.hub.publish("org/sharded", qwen2);
  auto snapshot = fetch_model(f.name("org/sharded"), f.settings);
  ASSERT_TRUE(snapshot) << snapshot.error();
  EXPECT_TRUE(missing_model_files(*snapshot).empty());
  for (const char* shard : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"})
    EXPECT_EQ(read(*snapshot / shard), read(qwen2 / shard)) << shard;
  EXPECT_EQ(count(f.hub.requests(), "cdn", "GET"), 2);
}

// TLS verification stays on: a Hub whose certificate no authority signed is refused, the token
// never sent, nothing written.
TEST(HubFetch, AnUnverifiedCertificateIsRefused) {
  const test_support::TempFolder dir("hub-tls");
  const auto made = test_support::run_shell("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -keyout '" +
                                            (dir / "key.pem").string() + "' -out '" + (dir / "cert.pem").string() + "' 2>&1");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  FakeHub hub(dir / "hub", {"--tls-cert", (dir / "cert.pem").string(), "--tls-key", (dir / "key.pem").string()});
  ASSERT_TRUE(hub.running());
  model_folder(dir / "v1", "{}", 14);
  hub.publish("org/tiny", dir / "v1");
  HubSettings settings;
  settings.endpoint = "https://127.0.0.1:" + hub.endpoint().substr(hub.endpoint().rfind(':') + 1);
  settings.cache = HubCache(dir / "cache");
  settings.token = "hf_not_for_strangers";
  auto refused = fetch_model(*parse_model_name("org/tiny"), settings);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("certificate"), std::string::npos) << refused.error();
  EXPECT_EQ(hub.request_count(), 0u);  // the handshake failed: no request, no header, was read
  EXPECT_FALSE(fs::exists(dir / "cache"));
}

TEST(HubFetch, OfflineUsesTheCacheOnlyAndSaysWhatIsMissing) {
  Fixture f("offline");
  const std::string commit = f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{}", 5));
  f.settings.offline = true;
  auto empty = fetch_model(f.name("org/tiny"), f.settings);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().find("offline"), std::string::npos) << empty.error();
  EXPECT_NE(empty.error().find("not in the cache"), std::string::npos) << empty.error();
  EXPECT_EQ(f.hub.request_count(), 0u);

  f.settings.offline = false;
  ASSERT_TRUE(fetch_model(f.name("org/tiny"), f.settings));
  f.settings.offline = true;
  Result<fs::path> cached = Error{""};
  const auto log = f.requests_during([&] { cached = fetch_model(f.name("org/tiny"), f.settings); });
  ASSERT_TRUE(cached) << cached.error();
  EXPECT_TRUE(log.empty());
  fs::remove(*cached / "model.safetensors");
  auto lacking = fetch_model(f.name("org/tiny"), f.settings);
  ASSERT_FALSE(lacking);
  EXPECT_NE(lacking.error().find("lacks model.safetensors"), std::string::npos) << lacking.error();
  EXPECT_NE(lacking.error().find(commit.substr(0, 12)), std::string::npos) << lacking.error();
}

TEST(HubFetch, TagsAndCommitHashesAreRevisions) {
  Fixture f("revisions");
  const std::string c1 = f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{\"v\": 1}", 6), "--tag step100");
  const std::string c2 = f.hub.publish("org/tiny", model_folder(f.dir / "v2", "{\"v\": 2}", 7));
  auto tagged = fetch_model(f.name("org/tiny@step100"), f.settings);
  ASSERT_TRUE(tagged) << tagged.error();
  EXPECT_EQ(read(*tagged / "config.json"), "{\"v\": 1}");
  const fs::path repo = f.settings.cache.repo(f.name("org/tiny"));
  EXPECT_EQ(read(repo / "refs" / "step100"), c1);
  auto hashed = fetch_model(f.name("org/tiny@" + c2), f.settings);
  ASSERT_TRUE(hashed) << hashed.error();
  EXPECT_EQ(read(*hashed / "config.json"), "{\"v\": 2}");
  EXPECT_FALSE(fs::exists(repo / "refs" / c2)) << "a commit hash is not a ref";
  auto unknown = fetch_model(f.name("org/tiny@step999"), f.settings);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("no revision \"step999\""), std::string::npos) << unknown.error();
  auto nobody = fetch_model(f.name("org/nobody"), f.settings);
  ASSERT_FALSE(nobody);
  EXPECT_NE(nobody.error().find("no such model"), std::string::npos) << nobody.error();
}

TEST(HubFetch, AListedNameThatWouldLeaveTheCacheIsRefusedBeforeAnythingIsWritten) {
  Fixture f("hostile");
  f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{}", 8));
  for (const char* evil : {"../../../../evil.safetensors", "/tmp/evil.safetensors", "a/../../x.safetensors"}) {
    f.hub.list_extra_names("org/tiny", {evil});
    auto refused = fetch_model(f.name("org/tiny"), f.settings);
    ASSERT_FALSE(refused) << evil;
    EXPECT_NE(refused.error().find("refuses"), std::string::npos) << refused.error();
    EXPECT_FALSE(fs::exists(f.settings.cache.root())) << "nothing written for " << evil;
  }
}

TEST(HubFetch, TwoDownloadsOfOneBlobAtOnceFetchItOnce) {
  Fixture f("parallel", {"--rate", "2000000"});
  f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{}", 9));
  Result<fs::path> a = Error{""}, b = Error{""};
  std::thread other([&] { b = fetch_model(f.name("org/tiny"), f.settings); });
  a = fetch_model(f.name("org/tiny"), f.settings);
  other.join();
  ASSERT_TRUE(a) << a.error();
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(read(*a / "model.safetensors"), read(f.dir / "v1" / "model.safetensors"));
  EXPECT_EQ(count(f.hub.requests(), "cdn", "GET"), 1);
}

TEST(HubFetch, CancelLeavesNoBlobUnderItsNameAndTheNextRunResumes) {
  Fixture f("cancel", {"--rate", "400000"});
  f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{}", 10));
  std::atomic<bool> cancel{false};
  FetchControl control;
  control.cancel = &cancel;
  control.progress = [&](const DownloadProgress& p) {
    if (p.done_bytes >= 64 * 1024 && p.done_bytes < p.total_bytes) cancel = true;  // mid-weights
  };
  auto cancelled = fetch_model(f.name("org/tiny"), f.settings, control);
  ASSERT_FALSE(cancelled);
  EXPECT_EQ(cancelled.error(), "cancelled");
  const auto m = f.name("org/tiny");
  const fs::path snapshot_dir = f.settings.cache.repo(m) / "snapshots";
  EXPECT_FALSE(fs::exists(snapshot_dir)) << "no snapshot links to a blob that is not whole";
  // The small files may be whole by then; the weights (named by their 64-digit sha256) are not.
  bool partial = false;
  for (const auto& e : fs::directory_iterator(f.settings.cache.repo(m) / "blobs")) {
    const std::string name = e.path().filename().string();
    if (name.size() >= 64) {
      EXPECT_EQ(e.path().extension(), ".incomplete") << e.path();
      EXPECT_GT(fs::file_size(e.path()), 0u);
      partial = true;
    }
  }
  EXPECT_TRUE(partial);
  auto resumed = fetch_model(m, f.settings);
  ASSERT_TRUE(resumed) << resumed.error();
  EXPECT_EQ(read(*resumed / "model.safetensors"), read(f.dir / "v1" / "model.safetensors"));
  bool ranged = false;
  for (const auto& r : f.hub.requests()) ranged |= r["server"] == "cdn" && !r["range"].is_null();
  EXPECT_TRUE(ranged) << test_support::read_whole_file(f.hub.log_path());
}

TEST(HubFetch, AHubOutOfReachFallsBackToTheCacheOrSaysSo) {
  Fixture f("unreachable");
  f.hub.publish("org/tiny", model_folder(f.dir / "v1", "{}", 11));
  ASSERT_TRUE(fetch_model(f.name("org/tiny"), f.settings));
  HubSettings away = f.settings;
  away.endpoint = "http://127.0.0.1:1";  // nothing listens on port 1
  auto plan = plan_fetch(f.name("org/tiny"), away);
  ASSERT_TRUE(plan) << plan.error();
  ASSERT_EQ(plan->notes.size(), 1u);
  EXPECT_NE(plan->notes[0].find("cannot reach"), std::string::npos);
  auto missing = fetch_model(f.name("org/other"), away);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("cannot reach"), std::string::npos) << missing.error();
}

}  // namespace
}  // namespace poslab::hub

namespace poslab::hub {
namespace {

// The layout of huggingface_hub's cache as the Hub documents it for other implementations
// (huggingface/hub-docs, docs/hub/local-cache.md), checked entry by entry: nothing more, nothing
// less, every blob named by the hash the Hub gives it (computed here with sha1sum and sha256sum).
std::string shell_hash(const std::string& command) {
  const auto r = test_support::run_shell(command);
  return r.output.substr(0, r.output.find(' '));
}

std::string git_blob_id(const fs::path& file) {
  return shell_hash("{ printf 'blob %d\\0' $(stat -c %s '" + file.string() + "'); cat '" + file.string() + "'; } | sha1sum");
}

std::string lfs_id(const fs::path& file) { return shell_hash("sha256sum '" + file.string() + "'"); }

TEST(HubLayout, MatchesTheLayoutHuggingFaceDocumentsFileByFile) {
  Fixture f("layout");
  const fs::path source = model_folder(f.dir / "v1", "{\"v\": 1}", 12);
  const std::string commit = f.hub.publish("org/tiny", source);
  ASSERT_TRUE(fetch_model(f.name("org/tiny"), f.settings));
  const std::string config = git_blob_id(source / "config.json"), tokenizer = git_blob_id(source / "tokenizer.json");
  const std::string weights = lfs_id(source / "model.safetensors");
  ASSERT_EQ(config.size(), 40u);
  ASSERT_EQ(weights.size(), 64u);

  // Every entry under the cache root: its path, and what it is (a symlink's target, a file's size).
  std::map<std::string, std::string> found;
  const fs::path root = f.settings.cache.root();
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = it->path().lexically_relative(root).generic_string();
    if (it->is_symlink()) found[rel] = "-> " + fs::read_symlink(it->path()).generic_string();
    else if (it->is_directory()) found[rel] = "dir";
    else found[rel] = "file " + std::to_string(fs::file_size(it->path()));
  }
  const std::string repo = "models--org--tiny";
  const auto size = [&](const char* name) { return "file " + std::to_string(fs::file_size(source / name)); };
  const std::map<std::string, std::string> expected = {
      {".locks", "dir"},
      {".locks/" + repo, "dir"},
      {".locks/" + repo + "/" + config + ".lock", "file 0"},
      {".locks/" + repo + "/" + tokenizer + ".lock", "file 0"},
      {".locks/" + repo + "/" + weights + ".lock", "file 0"},
      {repo, "dir"},
      {repo + "/blobs", "dir"},
      {repo + "/blobs/" + config, size("config.json")},
      {repo + "/blobs/" + tokenizer, size("tokenizer.json")},
      {repo + "/blobs/" + weights, size("model.safetensors")},
      {repo + "/refs", "dir"},
      {repo + "/refs/main", "file 40"},
      {repo + "/snapshots", "dir"},
      {repo + "/snapshots/" + commit, "dir"},
      {repo + "/snapshots/" + commit + "/config.json", "-> ../../blobs/" + config},
      {repo + "/snapshots/" + commit + "/tokenizer.json", "-> ../../blobs/" + tokenizer},
      {repo + "/snapshots/" + commit + "/model.safetensors", "-> ../../blobs/" + weights},
      {repo + "/.no_exist", "dir"},
      {repo + "/.no_exist/" + commit, "dir"},
      {repo + "/.no_exist/" + commit + "/tokenizer_config.json", "file 0"},
  };
  for (const auto& [path, what] : expected) {
    ASSERT_TRUE(found.count(path)) << "missing: " << path;
    EXPECT_EQ(found.at(path), what) << path;
  }
  for (const auto& [path, what] : found) EXPECT_TRUE(expected.count(path)) << "not in the documented layout: " << path << " " << what;
  EXPECT_EQ(read(root / repo / "refs" / "main"), commit);  // the commit alone, as huggingface_hub writes it
  EXPECT_EQ(read(root / repo / "blobs" / weights), read(source / "model.safetensors"));
}

}  // namespace
}  // namespace poslab::hub

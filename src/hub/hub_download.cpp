// run_fetch: the plan's bytes into the cache, several files at once, one writer per blob.
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "hub/http.hpp"
#include "hub/hub_client.hpp"
#include "hub/sha256.hpp"

namespace poslab::hub {

namespace fs = std::filesystem;

namespace {

constexpr int kAttempts = 5;                          // a cut transfer resumes this often
constexpr std::uint64_t kReportEvery = 64 * 1024;     // bytes between progress reports

// .locks/…/<etag>.lock held with flock, as huggingface_hub's filelock holds it, so that two
// processes (PosLab or Python) never write one blob; released when this goes.
class BlobLock {
 public:
  ~BlobLock() {
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
    }
  }
  Status acquire(const fs::path& path, const std::string& file, const FetchControl& c) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return Error{path.string() + ": cannot create the download's lock file"};
    // Another process holds it while it downloads: wait for it, still cancellable, and say so
    // (at once, then every kStallReport), since nothing else moves meanwhile.
    const auto start = std::chrono::steady_clock::now();
    auto next_report = start;
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (c.cancel && c.cancel->load()) return Error{"cancelled"};
      if (const auto now = std::chrono::steady_clock::now(); c.waiting && now >= next_report) {
        const auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - start).count();
        c.waiting("waiting for another process to finish downloading " + file + " (it holds " + path.string() + ")" +
                  (waited > 0 ? ", " + std::to_string(waited) + " s so far" : ""));
        next_report = now + kStallReport;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return Ok{};
  }

 private:
  int fd_ = -1;
};

class SharedProgress {
 public:
  SharedProgress(const FetchPlan& plan, const FetchControl& control) : control_(control) {
    state_.model = plan.model;
    for (const auto& f : plan.files)
      if (!f.have_blob) state_.total_bytes += f.size, ++state_.files_total;
  }
  void add(std::int64_t bytes, const std::string& file) {
    std::lock_guard lock(mutex_);
    state_.done_bytes = static_cast<std::uint64_t>(static_cast<std::int64_t>(state_.done_bytes) + bytes);
    unreported_ += static_cast<std::uint64_t>(std::max<std::int64_t>(bytes, 0));
    state_.file = file;
    if (unreported_ >= kReportEvery) report();
  }
  void file_done(const std::string& file) {
    std::lock_guard lock(mutex_);
    ++state_.files_done;
    state_.file = state_.files_done == state_.files_total ? "" : file;
    report();
  }

 private:
  void report() {
    unreported_ = 0;
    if (control_.progress) control_.progress(state_);
  }
  const FetchControl& control_;
  std::mutex mutex_;
  DownloadProgress state_;
  std::uint64_t unreported_ = 0;
};

// One attempt at the rest of blobs/<etag>.incomplete: a Range request from its size on. Never
// more than the announced size is written: a server that streams on (an endless body would
// fill the disk) is stopped at that size, and `too_long` says so.
Result<HttpResponse> fetch_rest(const RemoteFile& f, const fs::path& part, const std::string& token, const FetchControl& c,
                                const std::atomic<bool>& stop, SharedProgress& progress, std::uint64_t& offset, bool& too_long) {
  std::error_code ec;
  offset = fs::exists(part, ec) ? fs::file_size(part, ec) : 0;
  if (ec || offset > f.size) offset = 0, fs::remove(part, ec);
  std::FILE* out = std::fopen(part.c_str(), "ab");
  if (!out) return Error{part.string() + ": cannot write the download"};
  HttpRequest request;
  request.url = f.download_url;
  request.token = token;
  request.range_from = offset;
  request.cancel = c.cancel;
  request.waiting = c.waiting;
  request.on_status = [&](long status) {
    if (status == 200 && offset > 0) {  // the server ignored the Range: it starts from byte 0
      std::fflush(out);
      if (::ftruncate(::fileno(out), 0) == 0) progress.add(-static_cast<std::int64_t>(offset), f.name);
      offset = 0;
    }
  };
  std::uint64_t written = 0;  // since offset
  request.sink = [&](std::string_view bytes) {
    if (offset + written + bytes.size() > f.size) {
      too_long = true;
      return false;
    }
    if (stop.load() || (c.cancel && c.cancel->load()) || std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size()) return false;
    written += bytes.size();
    progress.add(static_cast<std::int64_t>(bytes.size()), f.name);
    return true;
  };
  too_long = false;
  auto response = http_request(request);
  if (std::fclose(out) != 0 && response) return Error{part.string() + ": cannot write the download"};
  if (too_long) {
    std::error_code removed;
    fs::remove(part, removed);  // bytes from a server that lies about the size are not kept to resume
    return Error{url_origin(f.download_url) + " sent more than the " + std::to_string(f.size) +
                 " bytes announced for it; the download was stopped there and removed"};
  }
  return response;
}

// The whole download against the SHA-256 the Hub gave for it (an LFS file's): bytes that hash to
// anything else are removed, never kept under the blob's name.
Status check_sha256(const FetchPlan& plan, const RemoteFile& f, const fs::path& part, const FetchControl& c) {
  if (f.sha256.empty()) return Ok{};
  auto digest = sha256_of_file(part, c.cancel);
  if (!digest) return Error{digest.error()};
  if (*digest == f.sha256) return Ok{};
  std::error_code ec;
  fs::remove(part, ec);
  return Error{plan.model.repo_id() + " " + f.name + ": the downloaded bytes' SHA-256 is " + *digest + ", not the " + f.sha256 +
               " the Hub gave for it; the download was removed (a server or proxy altered it; try again)"};
}

// The file's blob, downloaded unless it is there: whole under its final name, or not at all.
Status download_blob(const FetchPlan& plan, const RemoteFile& f, const HubSettings& s, const FetchControl& c,
                     const std::atomic<bool>& stop, SharedProgress& progress) {
  const fs::path blob = s.cache.blob(plan.model, f.etag), part = s.cache.incomplete(plan.model, f.etag);
  std::error_code ec;
  fs::create_directories(blob.parent_path(), ec);
  if (ec) return Error{blob.parent_path().string() + ": " + ec.message()};
  BlobLock lock;
  if (auto s1 = lock.acquire(s.cache.lock_file(plan.model, f.etag), f.name, c); !s1) return s1;
  if (fs::file_size(blob, ec) == f.size && !ec) return Ok{};  // another process finished it meanwhile
  // The token only to the Hub's own origin; a CDN (another host or port) never sees it.
  const std::string token = url_origin(f.download_url) == url_origin(s.endpoint) ? s.token : std::string();
  std::string last_error;
  std::uint64_t offset = 0;
  progress.add(0, f.name);
  for (int attempt = 0; attempt < kAttempts && !stop.load(); ++attempt) {
    const std::uint64_t before = fs::exists(part, ec) ? fs::file_size(part, ec) : 0;
    if (before > 0 && attempt == 0) progress.add(static_cast<std::int64_t>(std::min(before, f.size)), f.name);
    if (before == f.size && f.size > 0) break;
    bool too_long = false;
    auto response = fetch_rest(f, part, token, c, stop, progress, offset, too_long);
    if (too_long) {
      last_error = response.error();
      break;  // asking again would only stream too much again
    }
    if (!response) {
      if (response.error() == "cancelled") return Error{"cancelled"};
      last_error = response.error();
      const std::uint64_t after = fs::exists(part, ec) ? fs::file_size(part, ec) : 0;
      if (after <= before) break;  // nothing came: the server is not there, do not hammer it
      continue;                    // cut mid-file: the next attempt asks for the rest
    }
    if (transient_status(response->status)) {  // the CDN briefly down: ask again after a while
      last_error = url_origin(f.download_url) + " answered HTTP " + std::to_string(response->status) + " for the bytes of " + f.name +
                   ", " + std::to_string(attempt + 1) + (attempt == 0 ? " time" : " times");
      const auto wait = retry_wait(attempt, *response);
      if (c.waiting) c.waiting(transient_wait_text(*response, wait, attempt) + " for the bytes of " + f.name);
      if (!wait_unless_cancelled(wait, c.cancel)) return Error{"cancelled"};
      continue;
    }
    if (response->status == 416) {  // the part on disk is not a prefix the server knows: start over
      fs::remove(part, ec);
      last_error = "the server refused to resume " + f.name;
      continue;
    }
    if (response->status != 200 && response->status != 206) {
      last_error = s.endpoint + " answered HTTP " + std::to_string(response->status) + " for the bytes of " + f.name;
      break;
    }
    last_error.clear();
    break;
  }
  if (stop.load()) return Error{"stopped"};
  if (!last_error.empty()) return Error{plan.model.repo_id() + " " + f.name + ": " + last_error};
  const std::uint64_t got = fs::exists(part, ec) ? fs::file_size(part, ec) : 0;
  if (got != f.size) {
    if (got > f.size) fs::remove(part, ec);
    return Error{plan.model.repo_id() + " " + f.name + ": the download ended at " + std::to_string(got) + " of " +
                 std::to_string(f.size) + " bytes"};
  }
  if (auto checked = check_sha256(plan, f, part, c); !checked) return checked;
  fs::rename(part, blob, ec);
  if (ec) return Error{blob.string() + ": " + ec.message()};
  return Ok{};
}

}  // namespace

Result<fs::path> run_fetch(const FetchPlan& plan, const HubSettings& s, const FetchControl& c) {
  SharedProgress progress(plan, c);
  std::vector<const RemoteFile*> queue;
  for (const auto& f : plan.files)
    if (!f.have_blob) queue.push_back(&f);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::string first_error;
  const auto worker = [&] {
    for (std::size_t k; !stop.load() && (k = next.fetch_add(1)) < queue.size();) {
      if (c.cancel && c.cancel->load()) {
        std::lock_guard lock(error_mutex);
        if (first_error.empty()) first_error = "cancelled";
        stop = true;
        break;
      }
      if (auto done = download_blob(plan, *queue[k], s, c, stop, progress); !done) {
        std::lock_guard lock(error_mutex);
        if (first_error.empty() || first_error == "stopped") first_error = done.error();
        stop = true;
        break;
      }
      progress.file_done(queue[k]->name);
    }
  };
  const int threads = std::clamp(s.parallel, 1, std::max<int>(1, static_cast<int>(queue.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (!first_error.empty()) return Error{first_error};
  // Only now the snapshot's links: a snapshot never points at a blob that is not whole.
  for (const auto& f : plan.files)
    if (auto linked = s.cache.link(plan.model, plan.commit, f.name, f.etag); !linked) return Error{linked.error()};
  for (const auto& name : plan.absent)
    if (auto marked = s.cache.mark_missing(plan.model, plan.commit, name); !marked) return Error{marked.error()};
  const fs::path snapshot = s.cache.snapshot(plan.model, plan.commit);
  if (const auto missing = missing_model_files(snapshot); !missing.empty())
    return Error{plan.model.text() + " has no " + missing.front() +
                 " (PosLab reads config.json and .safetensors weights, not .bin or other formats)"};
  return snapshot;
}

}  // namespace poslab::hub

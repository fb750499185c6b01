#pragma once
// The Model tab's model box: a model named as the Hub names it (ORG/NAME[@REVISION]), typed or
// picked among the models already in Hugging Face's cache, fetched on a worker thread with a
// progress bar and Cancel while the window keeps drawing; once whole, its snapshot folder opens
// as a folder typed in the folder box would.
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hub/hub_client.hpp"
#include "base/newest_worker.hpp"

namespace poslab {

// Bytes of a download in flight, shared with the worker that moves them.
struct DownloadCounters {
  std::atomic<std::uint64_t> done{0}, total{0};
  std::atomic<int> files_done{0}, files_total{0};
  void reset() {
    done = 0, total = 0, files_done = 0, files_total = 0;
    set_waiting("");
  }
  void set(const hub::DownloadProgress& p) {
    done = p.done_bytes, total = p.total_bytes, files_done = p.files_done, files_total = p.files_total;
    set_waiting("");  // bytes move again: whatever it waited for is over
  }
  // What the download waits for now (another process's lock, a Retry-After, a silent server); "" when nothing.
  void set_waiting(const std::string& what) {
    std::lock_guard lock(waiting_mutex_);
    waiting_ = what;
  }
  std::string waiting() const {
    std::lock_guard lock(waiting_mutex_);
    return waiting_;
  }
  float fraction() const { return total ? static_cast<float>(static_cast<double>(done) / static_cast<double>(total)) : 0.0f; }
  std::string text() const;  // "12 MB of 27 MB · 1/3 files"

 private:
  mutable std::mutex waiting_mutex_;
  std::string waiting_;
};

// The window's model resolver (core/model_resolver.hpp), installed by run_gui before the window
// opens: a name elsewhere (a session, the Embeddings box) resolves from the cache only; the
// network is the model box's, on its worker, never the UI thread's.
void install_window_model_resolver();

class HubBox {
 public:
  // `open` is set to the snapshot folder of a model fetched (or picked from the cache).
  void draw(std::string& open);
  bool busy() const { return worker_.running(); }
  // The repository last named in the box ("" when none): the training view's default.
  std::string repo() const;

 private:
  void start(const std::string& text);
  void draw_cached(std::string& open);
  char input_[256] = "";
  std::vector<hub::CachedModel> cached_;
  NewestWorker<Result<std::filesystem::path>> worker_;
  std::shared_ptr<DownloadCounters> counters_ = std::make_shared<DownloadCounters>();
  std::string message_, error_;
};

}  // namespace poslab

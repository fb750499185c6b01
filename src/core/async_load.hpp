#pragma once
// Loading embeddings on a thread of its own, so that the window keeps drawing while a large file
// is read: progress, Cancel, and the finished table (or the error) taken once by the caller.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/formats/embeddings.hpp"

namespace poslab {

class AsyncLoad {
 public:
  AsyncLoad() = default;
  AsyncLoad(const AsyncLoad&) = delete;
  AsyncLoad& operator=(const AsyncLoad&) = delete;
  ~AsyncLoad();  // cancels and waits for a load still running

  // Starts loading (a load already running is cancelled first).
  void start(std::string path, std::string vocab, std::string tensor);
  // Loads started from now on parse at most this many bytes per second (0: no limit).
  void limit_rate(double bytes_per_second) { rate_ = bytes_per_second; }
  bool running() const { return thread_.joinable() && !taken_; }
  const std::string& path() const { return path_; }
  double progress() const { return control_ ? control_->fraction() : 0.0; }
  void cancel();
  // The result once the load has finished, exactly once; nullopt while it runs or after.
  std::optional<Result<EmbeddingTable>> take();

 private:
  void stop();
  std::thread thread_;
  std::unique_ptr<LoadControl> control_;
  std::mutex mutex_;
  std::optional<Result<EmbeddingTable>> result_;
  bool taken_ = true;
  double rate_ = 0.0;
  std::string path_;
};

}  // namespace poslab

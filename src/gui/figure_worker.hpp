#pragma once
// Builds a view's figure on a worker thread, so that a slow one (a long sentence's bias matrices,
// the trial layouts that fit a figure to its panel) never holds a frame up: the view keeps
// showing the figure it has until the new one is ready.
//
// Requests coalesce: one made while another builds replaces any still waiting, so dragging a
// slider builds the newest value next rather than every value passed on the way.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/result.hpp"

namespace poslab {

template <class Built>
class FigureWorker {
 public:
  // Runs on the worker thread: it may read only what it owns (copies, shared pointers). It may
  // return the figure or why there is none.
  using Build = std::function<Result<Built>()>;

  FigureWorker() = default;
  FigureWorker(const FigureWorker&) = delete;
  FigureWorker& operator=(const FigureWorker&) = delete;
  ~FigureWorker() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
      waiting_.reset();
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();  // waits for a build in flight: it cannot be cut short
  }

  void request(Build build) {
    {
      std::lock_guard lock(mutex_);
      waiting_ = std::move(build);
      ++requested_;
    }
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });  // started by the first request
    wake_.notify_one();
  }

  // The newest figure finished since the last call (or why its build failed), once.
  std::optional<Result<Built>> take() {
    std::lock_guard lock(mutex_);
    if (!finished_) return std::nullopt;
    std::optional<Result<Built>> out = std::move(finished_);
    finished_.reset();
    shown_ = finished_number_;
    return out;
  }

  // Whether the newest request is not yet taken (waiting, building, or built).
  bool busy() const {
    std::lock_guard lock(mutex_);
    return shown_ < requested_;
  }

  // For the view on the UI thread: installs the newest finished figure as current(), or its
  // failure as failure() (the previous figure stays). True when either changed.
  bool refresh() {
    std::optional<Result<Built>> taken = take();
    if (!taken) return false;
    if (*taken) {
      current_ = std::move(**taken);
      failure_.clear();
    } else {
      failure_ = taken->error();
    }
    return true;
  }
  const Built& current() const { return current_; }
  const std::string& failure() const { return failure_; }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || waiting_.has_value(); });
      if (stop_) return;
      Build build = std::move(*waiting_);
      waiting_.reset();
      const std::uint64_t number = requested_;
      lock.unlock();
      std::optional<Result<Built>> built;
      try {
        built.emplace(build());
      } catch (const std::exception& e) {  // out of memory, say: the view says so and keeps going
        built.emplace(Error{std::string("could not draw the figure: ") + e.what()});
      }
      lock.lock();
      finished_ = std::move(built);
      finished_number_ = number;
    }
  }

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Build> waiting_;
  std::optional<Result<Built>> finished_;
  std::uint64_t requested_ = 0, finished_number_ = 0, shown_ = 0;
  bool stop_ = false;
  Built current_{};      // UI thread only
  std::string failure_;  // UI thread only
  std::thread thread_;  // last: started after the members it uses, joined before they go
};

// Over the top of the figure about to be drawn, without taking room from it: "drawing …" while
// the first figure builds, or why the last build failed.
void draw_figure_note(bool busy, bool have_figure, const std::string& failure);

}  // namespace poslab

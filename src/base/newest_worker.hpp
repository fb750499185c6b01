#pragma once
// One worker thread for work where only the newest request matters: a pipeline run for the
// settings just chosen, a model's forward passes, a view's figure. A request made while another
// waits replaces it (dragging a slider runs the newest value next, not every value passed on the
// way), and the result of a superseded request never shows up as the newest one's.
//
// What happens to a request that is already running when a newer one comes depends on the work:
//   Superseded::Cancel  it is told to stop (its cancel flag), and its result is dropped;
//   Superseded::Finish  it runs to the end and its result is delivered: work that cannot be cut
//                       short (a figure build) still shows a step towards the newest settings.
// Either way the results come to the owner's thread through take(), never by callback, so an
// owner touches them only where it polls.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace poslab {

enum class Superseded { Cancel, Finish };

// What a running request sees of the worker: whether it should stop, and where its progress goes.
class RunSignals {
 public:
  RunSignals(const std::atomic<bool>& cancel, std::atomic<double>& progress) : cancel_(cancel), progress_(progress) {}
  bool cancelled() const { return cancel_.load(); }
  // For the controls the work already takes (PipelineControl, RunControl).
  const std::atomic<bool>* cancel_flag() const { return &cancel_; }
  std::function<void(double)> progress_sink() const {
    std::atomic<double>* to = &progress_;
    return [to](double fraction) { *to = fraction; };
  }

 private:
  const std::atomic<bool>& cancel_;
  std::atomic<double>& progress_;
};

template <class T>
class NewestWorker {
 public:
  // Runs on the worker thread: it may read only what it owns (copies, shared pointers). It must
  // not throw (an owner that can fail returns a Result).
  using Task = std::function<T(const RunSignals&)>;

  explicit NewestWorker(Superseded superseded = Superseded::Cancel) : superseded_(superseded) {}
  NewestWorker(const NewestWorker&) = delete;
  NewestWorker& operator=(const NewestWorker&) = delete;
  ~NewestWorker() { stop(); }

  void request(Task task) {
    auto run = std::make_shared<Run>();
    run->task = std::move(task);
    {
      std::lock_guard lock(mutex_);
      run->number = ++requested_;
      if (superseded_ == Superseded::Cancel) {
        if (running_) running_->cancel = true;
        finished_.reset();  // stale now
      }
      waiting_ = run;  // replaces a request that has not begun
      newest_ = std::move(run);
    }
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });  // started by the first request
    wake_.notify_one();
  }

  // Stops the newest request (and a superseded one still running): no result of theirs comes.
  void cancel() {
    {
      std::lock_guard lock(mutex_);
      if (newest_) newest_->cancel = true;
      if (running_) running_->cancel = true;
      waiting_.reset();
      finished_.reset();
    }
    idle_.notify_all();
  }

  // The newest result finished since the last call, once.
  std::optional<T> take() {
    std::lock_guard lock(mutex_);
    if (!finished_) return std::nullopt;
    std::optional<T> out = std::move(finished_);
    finished_.reset();
    taken_ = finished_number_;
    return out;
  }

  // The newest request waits or runs (not cancelled, not yet finished).
  bool running() const {
    std::lock_guard lock(mutex_);
    return newest_ && !newest_->cancel && ended_ < newest_->number;
  }
  // The newest request's result is not yet taken (waiting, running, or finished).
  bool busy() const {
    std::lock_guard lock(mutex_);
    return newest_ && !newest_->cancel && taken_ < newest_->number;
  }
  // The newest request's progress, 0 … 1 while it waits or runs; 1 when none does.
  double progress() const {
    std::lock_guard lock(mutex_);
    const bool running = newest_ && !newest_->cancel && ended_ < newest_->number;
    return running ? newest_->progress.load() : 1.0;
  }

  // Blocks until no request waits or runs (tests, scripted screenshots, a synchronous caller).
  void wait() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return !waiting_ && !running_; });
  }

  // Cancels everything and joins the thread (before what the work uses goes); a later request
  // starts a new one.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
      if (newest_) newest_->cancel = true;
      if (running_) running_->cancel = true;
      waiting_.reset();
      finished_.reset();
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();  // waits for a run in flight to notice
    std::lock_guard lock(mutex_);
    stop_ = false;
  }

 private:
  struct Run {
    std::uint64_t number = 0;
    Task task;
    std::atomic<bool> cancel{false};
    std::atomic<double> progress{0.0};
  };

  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || waiting_; });
      if (stop_) return;
      running_ = std::move(waiting_);
      waiting_.reset();
      const std::shared_ptr<Run> run = running_;
      lock.unlock();
      T result = run->task(RunSignals(run->cancel, run->progress));
      lock.lock();
      // A newer request (Cancel), cancel() or stop() set the flag: the result is nobody's.
      if (!run->cancel) {
        finished_ = std::move(result);
        finished_number_ = run->number;
      }
      ended_ = run->number;
      running_.reset();
      idle_.notify_all();
    }
  }

  const Superseded superseded_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;  // a request waits, or stop
  std::condition_variable idle_;  // a run ended
  std::shared_ptr<Run> waiting_, running_, newest_;
  std::optional<T> finished_;
  std::uint64_t requested_ = 0, finished_number_ = 0, taken_ = 0, ended_ = 0;
  bool stop_ = false;
  std::thread thread_;  // last: started after the members it uses, joined before they go
};

}  // namespace poslab

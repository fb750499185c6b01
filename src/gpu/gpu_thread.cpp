#include "gpu/gpu_thread.hpp"

#include <tuple>
#include <utility>

namespace poslab::gpu {

namespace {
// The device time of each calling thread's last run: threads share the backend, not their runs.
thread_local std::optional<double> t_last_device_ms;
thread_local std::uint64_t t_last_run = 0;
}  // namespace

Result<std::unique_ptr<GpuThread>> GpuThread::start(std::function<void()> make_current) {
  std::unique_ptr<GpuThread> g(new GpuThread());
  std::promise<Result<std::string>> started;
  auto ready = started.get_future();
  g->thread_ = std::thread([raw = g.get(), make = std::move(make_current), &started]() mutable {
    raw->loop(std::move(make), started);
  });
  auto name = ready.get();
  if (!name) return Error{name.error()};  // the thread has ended; the destructor joins it
  g->name_ = *name;
  return g;
}

void GpuThread::loop(std::function<void()> make_current, std::promise<Result<std::string>>& started) {
  make_current();
  auto created = GpuBackend::create();
  if (!created) {
    started.set_value(Error{created.error()});
    return;
  }
  backend_ = std::move(*created);
  started.set_value(backend_->name());
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) break;  // stopping, with nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
  backend_.reset();  // its buffers and programs go while their context is still current here
}

GpuThread::~GpuThread() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

template <class Work>
auto GpuThread::call(Work work) -> decltype(work(std::declval<GpuBackend&>())) {
  using Out = decltype(work(std::declval<GpuBackend&>()));
  auto task = std::make_shared<std::packaged_task<Out()>>([this, w = std::move(work)]() mutable { return w(*backend_); });
  auto result = task->get_future();
  {
    std::lock_guard lock(mutex_);
    tasks_.emplace_back([task] { (*task)(); });
  }
  wake_.notify_one();
  return result.get();
}

Result<AttentionOutput> GpuThread::run(const AttentionProblem& problem) {
  auto [out, ms, number] = call([this, &problem](GpuBackend& b) {
    auto result = b.run(problem);
    return std::tuple(std::move(result), b.last_device_ms(), ++runs_);
  });
  t_last_device_ms = ms;
  t_last_run = number;
  return std::move(out);
}

Result<AttentionOutput> GpuThread::attend(const AttentionInput& input, bool with_weights) {
  auto [out, ms, number] = call([this, &input, with_weights](GpuBackend& b) {
    auto result = b.attend(input, with_weights);
    return std::tuple(std::move(result), b.last_device_ms(), ++runs_);
  });
  t_last_device_ms = ms;
  t_last_run = number;
  return std::move(out);
}

std::optional<double> GpuThread::last_device_ms() const { return t_last_device_ms; }
std::uint64_t GpuThread::last_run() const { return t_last_run; }

Result<GLuint> GpuThread::paint_heatmap(const HeatmapPaint& paint) {
  return call([this, &paint](GpuBackend& b) -> Result<GLuint> {
    if (paint.run != 0 && paint.run != runs_) return Error{"a later run has replaced it on the GPU"};
    auto texture = b.paint_heatmap(paint);
    glFinish();  // another context draws it next
    return texture;
  });
}

}  // namespace poslab::gpu

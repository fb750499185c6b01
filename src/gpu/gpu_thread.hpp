#pragma once
// The GPU attention path on a thread of its own, with an OpenGL context of its own (shared with
// the window's, so that the textures it paints can be drawn there). Any thread may call it: each
// call is run on the GPU thread in turn while the caller waits. The GUI's worker threads compute
// through it, so that a long run on the GPU path never holds up a frame.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gpu/attention_gpu.hpp"

namespace poslab::gpu {

class GpuThread final : public AttentionBackend, public HeatmapPainter {
 public:
  // Starts the thread, calls `make_current` there (it makes the context current on the calling
  // thread), and creates the backend in it; the driver's words when any of that fails.
  static Result<std::unique_ptr<GpuThread>> start(std::function<void()> make_current);
  ~GpuThread() override;  // runs what was queued, releases the backend in its context, joins
  GpuThread(const GpuThread&) = delete;
  GpuThread& operator=(const GpuThread&) = delete;

  std::string name() const override { return name_; }
  Result<AttentionOutput> run(const AttentionProblem& problem) override;
  Result<AttentionOutput> attend(const AttentionInput& input, bool with_weights) override;
  // The device time of the calling thread's last run.
  std::optional<double> last_device_ms() const override;
  std::uint64_t last_run() const override;
  bool callable_from_any_thread() const override { return true; }
  // Painted and finished (glFinish) before it returns, so the window's context may draw it at once;
  // an error when paint.run is given and a later run (a stale one, from another thread) has
  // replaced it in the buffers.
  Result<GLuint> paint_heatmap(const HeatmapPaint& paint) override;

 private:
  GpuThread() = default;
  // Runs `work` with the backend on the GPU thread and waits for its result.
  template <class Work>
  auto call(Work work) -> decltype(work(std::declval<GpuBackend&>()));
  void loop(std::function<void()> make_current, std::promise<Result<std::string>>& started);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::unique_ptr<GpuBackend> backend_;  // made, used and released on the GPU thread only
  std::uint64_t runs_ = 0;               // GPU thread only: the number of the last run
  std::string name_;
  std::thread thread_;
};

}  // namespace poslab::gpu

#include "ui/export_queue.hpp"

#include <chrono>
#include <utility>

namespace poslab {

ExportQueue::ExportQueue() : thread_([this] { loop(); }) {}

ExportQueue::~ExportQueue() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();  // runs what was queued first
}

void ExportQueue::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void ExportQueue::loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void ExportQueue::complete(Status status, std::vector<std::string> written) {
  std::lock_guard lock(mutex_);
  done_.push_back({std::move(status), std::move(written)});
}

void ExportQueue::start(ExportView view, State state, std::shared_ptr<const Results> results,
                        std::shared_ptr<const EmbeddingTable> table, ExportRequest request) {
  {
    std::lock_guard lock(mutex_);
    ++outstanding_;
  }
  post([this, view, state = std::move(state), results = std::move(results), table = std::move(table),
        request = std::move(request)] {
    std::vector<std::string> written;
    auto figure = export_all_but_png(view, state, *results, *table, request, written);
    if (!figure) return complete(Error{figure.error()}, std::move(written));
    if (request.png.empty()) return complete(Ok{}, std::move(written));
    std::lock_guard lock(mutex_);
    to_draw_.push_back({std::move(*figure), request, std::move(written)});
  });
}

void ExportQueue::pump(const Report& report) {
  std::deque<ToDraw> drawing;
  std::deque<Done> done;
  {
    std::lock_guard lock(mutex_);
    drawing.swap(to_draw_);
    done.swap(done_);
  }
  for (ToDraw& d : drawing) {
    auto& renderer = renderers_[d.request.scale];
    if (!renderer) {
      auto made = plot::FigureRenderer::create(d.request.scale);
      if (!made) {
        complete(Error{d.request.png + ": " + made.error()}, std::move(d.written));
        continue;
      }
      renderer = std::move(*made);
    }
    auto image = renderer->render(d.figure);
    if (!image) {
      complete(Error{d.request.png + ": " + image.error()}, std::move(d.written));
      continue;
    }
    // Encoding and writing on the worker again.
    post([this, image = std::move(*image), path = d.request.png, written = std::move(d.written)]() mutable {
      Status s = write_png_image(image, path, written);
      complete(std::move(s), std::move(written));
    });
  }
  for (Done& d : done) {
    report(d.status, d.written);
    std::lock_guard lock(mutex_);
    --outstanding_;
  }
}

void ExportQueue::finish(const Report& report) {
  while (busy()) {
    pump(report);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  renderers_.clear();  // in the context they were made in
}

bool ExportQueue::busy() const {
  std::lock_guard lock(mutex_);
  return outstanding_ > 0;
}

}  // namespace poslab

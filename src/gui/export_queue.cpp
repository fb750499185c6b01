#include "gui/export_queue.hpp"

#include <chrono>
#include <utility>

#include "base/files.hpp"
#include "plot/render.hpp"

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

void ExportQueue::complete(Status status, std::vector<std::string> written, std::string folder) {
  std::lock_guard lock(mutex_);
  done_.push_back({std::move(status), std::move(written), std::move(folder)});
}

namespace {
// Baked on the worker; null for a scale out of range (the renderer then says why).
std::shared_ptr<plot::BakedFonts> fonts_for(float scale) {
  return scale > 0.0f && scale <= 8.0f ? plot::BakedFonts::bake(scale) : nullptr;
}
}  // namespace

void ExportQueue::start(ViewId view, State state, std::shared_ptr<const Results> results,
                        std::shared_ptr<const EmbeddingTable> table, ExportRequest request) {
  {
    std::lock_guard lock(mutex_);
    ++outstanding_;
  }
  post([this, view, state = std::move(state), results = std::move(results), table = std::move(table),
        request = std::move(request)] {
    // Shared: the steps below are std::functions, which must be copyable.
    auto plan = std::make_shared<OutputPlan>();
    const std::string failed = nothing_written(request);
    std::vector<std::string> written;
    auto figure = export_begin(view, state, *results, *table, request, *plan, written);
    if (!figure) return complete(Error{failed + figure.error()}, {});
    if (request.png.empty()) {
      if (Status s = plan->commit(); !s) return complete(Error{failed + s.error()}, {});
      return complete(Ok{}, std::move(written));
    }
    ToDraw d;
    d.fonts = fonts_for(request.scale);
    d.pngs.push_back({std::move(*figure), request.png, request.scale});
    d.written = std::move(written);
    d.write = [plan](const plot::RgbaImage& image, const std::string& path, std::vector<std::string>& out) {
      return write_png_into(image, path, *plan, out);
    };
    d.commit = [plan](std::vector<std::string>&) { return plan->commit(); };
    d.abort = [plan] { plan->discard(); };
    d.failed = failed;
    std::lock_guard lock(mutex_);
    to_draw_.push_back(std::move(d));
  });
}

void ExportQueue::save_png(plot::RgbaImage image, std::string path) {
  {
    std::lock_guard lock(mutex_);
    ++outstanding_;
  }
  post([this, image = std::move(image), path = std::move(path)] {
    const std::string details =
        path + " (" + std::to_string(image.width) + "×" + std::to_string(image.height) + " PNG, the window)";
    if (Status s = write_file_atomic(path, plot::encode_png(image)); !s) return complete(s, {});
    complete(Ok{}, {details});
  });
}

void ExportQueue::start_all(State state, std::shared_ptr<const Results> results,
                            std::shared_ptr<const EmbeddingTable> table, std::filesystem::path dir, float scale,
                            std::vector<ShownModelView> shown) {
  {
    std::lock_guard lock(mutex_);
    ++outstanding_;
  }
  post([this, state = std::move(state), results = std::move(results), table = std::move(table), dir = std::move(dir),
        scale, shown = std::move(shown)] {
    auto plan = export_all_begin(state, *results, *table, dir, scale, shown);
    if (!plan) return complete(Error{plan.error()}, {}, dir.string());
    ToDraw d;
    d.fonts = fonts_for(scale);
    d.folder = dir.string();
    d.pngs = std::move(plan->pngs);
    plan->pngs.clear();
    d.write = write_png_image;  // into the staging folder, which the commit moves into place
    d.commit = [plan = *plan](std::vector<std::string>& written) {
      std::vector<std::string> moved;  // the files in their places, not the staging folder's
      Status s = export_all_commit(plan, moved);
      written = std::move(moved);
      return s;
    };
    d.abort = [plan = *plan] { export_all_abort(plan); };
    std::lock_guard lock(mutex_);
    to_draw_.push_back(std::move(d));
  });
}

void ExportQueue::draw_next() {
  ToDraw& d = *drawing_;
  const PendingPng& png = d.pngs[d.drawn.size()];
  auto fail = [&](std::string why) {
    if (d.abort) d.abort();
    complete(Error{d.failed + png.path + ": " + why}, {}, d.folder);
    drawing_.reset();
  };
  if (renderer_ && renderer_->scale() != png.scale) renderer_.reset();
  if (!renderer_) {
    // The fonts were baked on the worker; only the context and its programs are made here.
    auto made = d.fonts && d.fonts->scale == png.scale ? plot::FigureRenderer::create(d.fonts)
                                                        : plot::FigureRenderer::create(png.scale);
    if (!made) return fail(made.error());
    renderer_ = std::move(*made);
  }
  auto image = renderer_->render(png.figure);
  if (!image) return fail(image.error());
  d.drawn.emplace_back(std::move(*image), png.path);
  if (d.drawn.size() < d.pngs.size()) return;
  // Encoding and writing on the worker again.
  post([this, images = std::move(d.drawn), written = std::move(d.written), write = std::move(d.write),
        commit = std::move(d.commit), abort = std::move(d.abort), failed = d.failed, folder = d.folder]() mutable {
    for (const auto& [drawn_image, path] : images) {
      if (Status s = write(drawn_image, path, written); !s) {
        if (abort) abort();
        return complete(Error{failed + s.error()}, {}, folder);
      }
    }
    if (commit)
      if (Status s = commit(written); !s) return complete(Error{failed + s.error()}, {}, folder);
    complete(Ok{}, std::move(written), folder);
  });
  drawing_.reset();
}

void ExportQueue::pump(const Report& report) {
  std::deque<Done> done;
  {
    std::lock_guard lock(mutex_);
    if (!drawing_ && !to_draw_.empty()) {
      drawing_ = std::move(to_draw_.front());
      to_draw_.pop_front();
    }
    done.swap(done_);
  }
  if (drawing_) draw_next();  // one PNG a frame: the window keeps drawing through an "export all"
  else if (renderer_ && !busy()) renderer_.reset();
  for (Done& d : done) {
    report(d.status, d.written, d.folder);
    std::lock_guard lock(mutex_);
    --outstanding_;
  }
}

void ExportQueue::finish(const Report& report) {
  while (busy()) {
    pump(report);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  renderer_.reset();  // in the context it was made in
}

bool ExportQueue::busy() const {
  std::lock_guard lock(mutex_);
  return outstanding_ > 0;
}

}  // namespace poslab

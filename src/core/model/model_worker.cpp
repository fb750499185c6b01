#include "core/model/model_worker.hpp"

namespace poslab {

void ModelWorker::request(std::shared_ptr<const Checkpoint> model, const ModelRequest& request) {
  if (model.get() == last_model_ && last_request_ && *last_request_ == request) return;
  last_model_ = model.get();
  last_request_ = request;
  worker_.request([model = std::move(model), request](const RunSignals& run) {
    RunControl control;
    control.cancel = run.cancel_flag();
    control.progress = run.progress_sink();
    return run_model(*model, request, control);
  });
}

void ModelWorker::cancel() {
  worker_.cancel();
  last_request_.reset();
}

void ModelWorker::collect() const {
  std::lock_guard lock(mutex_);
  std::optional<Result<ModelRun>> run = worker_.take();
  if (!run) return;
  if (*run) {
    latest_ = std::make_shared<const ModelRun>(std::move(**run));
    error_.clear();
  } else {
    error_ = run->error();
  }
  ++version_;
}

std::shared_ptr<const ModelRun> ModelWorker::latest() const {
  collect();
  std::lock_guard lock(mutex_);
  return latest_;
}

std::string ModelWorker::error() const {
  collect();
  std::lock_guard lock(mutex_);
  return error_;
}

std::uint64_t ModelWorker::version() const {
  collect();
  std::lock_guard lock(mutex_);
  return version_;
}

}  // namespace poslab

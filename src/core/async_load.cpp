#include "core/async_load.hpp"

#include "core/formats/formats.hpp"

namespace poslab {

AsyncLoad::~AsyncLoad() { stop(); }

void AsyncLoad::stop() {
  if (control_) control_->cancel();
  if (thread_.joinable()) thread_.join();
}

void AsyncLoad::start(std::string path, std::string vocab, std::string tensor) {
  stop();
  control_ = std::make_unique<LoadControl>();
  control_->limit_rate(rate_);
  result_.reset();
  taken_ = false;
  path_ = path;
  thread_ = std::thread([this, path = std::move(path), vocab = std::move(vocab), tensor = std::move(tensor),
                         control = control_.get()] {
    auto loaded = load_embeddings_file(path, vocab, tensor, control);
    if (control->cancelled() && loaded) loaded = Error{path + ": loading cancelled"};
    std::lock_guard lock(mutex_);
    result_ = std::move(loaded);
  });
}

void AsyncLoad::cancel() {
  if (control_) control_->cancel();
}

std::optional<Result<EmbeddingTable>> AsyncLoad::take() {
  {
    std::lock_guard lock(mutex_);
    if (taken_ || !result_) return std::nullopt;
  }
  thread_.join();  // the result is set: the thread is ending
  taken_ = true;
  std::optional<Result<EmbeddingTable>> out = std::move(result_);
  result_.reset();
  return out;
}

}  // namespace poslab

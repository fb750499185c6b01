#include "core/model/model_worker.hpp"

#include "core/jobs.hpp"

namespace poslab {

ModelWorker::~ModelWorker() {
  for (auto& j : jobs_) j->cancel = true;
  reap(true);
}

void ModelWorker::reap(bool all) {
  reap_jobs(jobs_, all);
}

void ModelWorker::request(std::shared_ptr<const Checkpoint> model, const ModelRequest& request) {
  reap(false);
  if (model.get() == last_model_ && last_request_ && *last_request_ == request) return;
  for (auto& j : jobs_) j->cancel = true;
  last_model_ = model.get();
  last_request_ = request;
  auto job = std::make_unique<Job>();
  job->model = std::move(model);
  job->request = request;
  Job* j = job.get();
  j->thread = std::thread([this, j] {
    RunControl control;
    control.cancel = &j->cancel;
    control.progress = [j](double f) { j->progress = f; };
    auto run = run_model(*j->model, j->request, control);
    if (!j->cancel) {
      std::lock_guard lock(mutex_);
      if (run) {
        latest_ = std::make_shared<const ModelRun>(std::move(*run));
        error_.clear();
      } else {
        error_ = run.error();
      }
      ++version_;
    }
    j->done = true;
  });
  jobs_.push_back(std::move(job));
}

void ModelWorker::cancel() {
  for (auto& j : jobs_) j->cancel = true;
  last_request_.reset();
}

bool ModelWorker::running() const { return !jobs_.empty() && !jobs_.back()->done && !jobs_.back()->cancel; }

double ModelWorker::progress() const { return jobs_.empty() ? 1.0 : jobs_.back()->progress.load(); }

std::shared_ptr<const ModelRun> ModelWorker::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

std::string ModelWorker::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void ModelWorker::wait() { reap(true); }

}  // namespace poslab

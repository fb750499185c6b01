#include "core/train/train_worker.hpp"

#include <chrono>

namespace poslab {

TrainWorker::~TrainWorker() {
  stop();
  wait();
}

bool TrainWorker::start(TrainJob job, std::vector<std::filesystem::path> evaluate_only) {
  if (running_) return false;
  wait();  // the finished thread
  stop_ = false;
  running_ = true;
  {
    std::lock_guard lock(mutex_);
    progress_ = TrainProgress{};
    progress_.running = true;
    for (const TrainSettings& s : job.runs) progress_.runs.push_back({std::string(to_string(s.model.positions)), {}, {}, 0.0, false, false});
  }
  ++version_;
  thread_ = std::thread([this, job = std::move(job), only = std::move(evaluate_only)]() mutable { run(std::move(job), std::move(only)); });
  return true;
}

void TrainWorker::stop() { stop_ = true; }

void TrainWorker::wait() {
  if (thread_.joinable()) thread_.join();
}

TrainProgress TrainWorker::progress() const {
  std::lock_guard lock(mutex_);
  return progress_;
}

template <class F>
void TrainWorker::update(F&& change) {
  {
    std::lock_guard lock(mutex_);
    change(progress_);
  }
  ++version_;
}

void TrainWorker::run(TrainJob job, std::vector<std::filesystem::path> evaluate_only) {
  std::vector<std::pair<std::string, TrainedModel>> trained;
  long long total_steps = 0, steps_done = 0;
  for (const TrainSettings& s : job.runs) total_steps += s.steps;
  // Training is most of the work; evaluation the last tenth of the bar.
  const double train_share = job.runs.empty() ? 0.0 : 0.9;
  auto fail = [&](const std::string& message) {
    update([&](TrainProgress& p) {
      p.error = message;
      p.phase = "failed";
      p.running = false;
    });
    running_ = false;
  };

  for (std::size_t k = 0; k < job.runs.size() && !stop_; ++k) {
    const TrainSettings& settings = job.runs[k];
    const std::string name = std::string(to_string(settings.task.kind)) + "-" + std::string(to_string(settings.model.positions));
    update([&](TrainProgress& p) {
      p.phase = "training " + std::string(to_string(settings.model.positions)) + " (" + std::to_string(k + 1) + "/" +
                std::to_string(job.runs.size()) + ")";
    });
    auto run = train(settings, [&](const TrainStep& step) {
      ++steps_done;
      update([&](TrainProgress& p) {
        p.runs[k].log.push_back(step);
        p.fraction = train_share * static_cast<double>(steps_done) / static_cast<double>(std::max(total_steps, 1LL));
      });
      return !stop_;
    });
    if (!run) return fail(run.error());
    const double seconds = run->seconds;
    const bool stopped = run->stopped;
    TrainedModel model = trained_model(std::move(*run));
    const std::filesystem::path dir = job.folder / name;
    if (auto saved = save_model_folder(model, dir); !saved) return fail(saved.error());
    update([&](TrainProgress& p) {
      p.runs[k].folder = dir;
      p.runs[k].seconds = seconds;
      p.runs[k].finished = true;
      p.runs[k].stopped = stopped;
    });
    trained.emplace_back(name, std::move(model));
  }
  for (const auto& dir : evaluate_only) {
    auto model = load_model_folder(dir);
    if (!model) return fail(model.error());
    trained.emplace_back(dir.filename().string(), std::move(*model));
  }

  if (!stop_ && !trained.empty()) {
    std::vector<int> lengths = job.eval_lengths;
    if (lengths.empty()) lengths = extrapolation_lengths(trained.front().second.train_length);
    EvalSettings eval;
    eval.sequences = job.eval_sequences;
    for (const auto& [name, model] : trained)
      for (int length : lengths)
        if (auto fits = check_evaluation_memory(model.model, model.task, length, eval); !fits) return fail(fits.error());
    const auto curves = extrapolation_curves(name_models(std::move(trained)), lengths, job.with_scalings, eval,
                                             [&](int done, int total) {
                                               update([&](TrainProgress& p) {
                                                 p.phase = "evaluating " + std::to_string(done) + "/" + std::to_string(total);
                                                 p.fraction = train_share + (1.0 - train_share) * done / std::max(total, 1);
                                               });
                                               return !stop_;
                                             });
    update([&](TrainProgress& p) { p.curves = curves; });
  }
  update([&](TrainProgress& p) {
    p.phase = stop_ ? "stopped" : "done";
    if (!stop_) p.fraction = 1.0;
    p.running = false;
  });
  running_ = false;
}

}  // namespace poslab

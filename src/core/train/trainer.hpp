#pragma once
// Training runs: seeded weights, seeded batches of a task, AdamW on a schedule with clipping,
// the batch split over the cores. A seed gives the same bits whatever the number of cores.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/train/model.hpp"
#include "core/train/optimizer.hpp"

namespace poslab {

struct TrainSettings {
  Task task;
  int train_length = 32;      // the task's length (copy: symbols copied; recall: pairs)
  // 0: every training sequence has train_length; otherwise each has a length drawn from
  // [min_length, train_length] (make_mixed_batch), as Kazemnejad et al. 2023 train.
  int min_length = 0;
  TrainModelConfig model;     // vocab and max_positions are set from the task (resolved_model)
  int steps = 1500;
  int batch = 32;             // sequences per step
  double lr = 3e-3;
  int warmup = 100;
  double min_lr_ratio = 0.1;
  AdamWSettings adamw;
  double clip = 1.0;          // global gradient norm
  double init_std = 0.02;     // σ of the initial weights (see initialize)
  std::uint64_t seed = 1;
  int shards = 2;             // groups the batch is cut into (one per core); part of the result's bits
};

// The default run of `poslab train --task copy --encoding rope --train-length 32`.
TrainSettings default_train_settings();

// settings.model with the task's vocabulary, one learned row per position of a training sequence
// (max_positions), and the settings of the encodings not used at their defaults.
TrainModelConfig resolved_model(const TrainSettings& settings);

// Problems with the settings, named; the model is checked with validate() (not the app's limits).
Status validate(const TrainSettings& settings);

// The memory a run takes (the parameters, their gradient per shard and AdamW's moments, a batch's
// activations), checked against the budget (base/memory.hpp) before anything is allocated.
double training_bytes(const TrainSettings& settings);
Status check_training_memory(const TrainSettings& settings);

struct TrainStep {
  int step = 0;
  double loss = 0.0;          // before this step's update
  double lr = 0.0;
  double grad_norm = 0.0;     // before clipping
  double tokens_per_s = 0.0;  // tokens read by the model in this step / its wall time
};

template <class S>
class Trainer {
 public:
  Trainer(const TrainSettings& settings, Params<S> initial);
  // Loss and gradient of the batch, clipping, and one AdamW update at the scheduled rate.
  TrainStep step(const Batch& batch);
  const Params<S>& params() const { return params_; }
  Params<S>& params() { return params_; }
  const Params<S>& gradient() const { return grad_; }  // of the last step, after clipping
  int steps_done() const { return step_; }

 private:
  TrainSettings settings_;
  Params<S> params_, grad_;
  GradientEngine<S> engine_;
  AdamW<S> adamw_;
  int step_ = 0;
};

// The batch of step s: a seeded function of (seed, s) alone.
Batch training_batch(const TrainSettings& settings, int step);
// The initial weights of a run.
Params<float> initial_params(const TrainSettings& settings);

struct TrainRun {
  TrainSettings settings;
  TrainModelConfig model;
  Params<float> params;
  std::vector<TrainStep> log;
  double seconds = 0.0;
  bool stopped = false;  // on_step asked to stop before the last step
};

// A whole run. on_step is called after every step (a worker thread's progress and live loss);
// returning false stops the run there, with the weights as they are.
Result<TrainRun> train(const TrainSettings& settings, const std::function<bool(const TrainStep&)>& on_step = {});

}  // namespace poslab

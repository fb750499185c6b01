#include "core/train/trainer.hpp"

#include "base/memory.hpp"

#include <chrono>

#include "base/random.hpp"

namespace poslab {

namespace {

// Independent random streams of a run.
constexpr std::uint64_t kInitStream = 1, kBatchStream = 2;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TrainSettings default_train_settings() { return TrainSettings{}; }

TrainModelConfig resolved_model(const TrainSettings& s) {
  TrainModelConfig m = s.model;
  m.vocab = vocab_size(s.task);
  m.max_positions = sequence_tokens(s.task, s.train_length);
  // Settings another encoding would use go back to their defaults, as a saved folder (which
  // does not write them) reads back.
  const TrainModelConfig defaults;
  if (m.positions != PositionKind::Rope) {
    m.rope_theta = defaults.rope_theta;
    m.partial_rotary = defaults.partial_rotary;
    m.rope_fraction = defaults.rope_fraction;
  }
  if (m.positions != PositionKind::T5) {
    m.t5_buckets = defaults.t5_buckets;
    m.t5_max_distance = defaults.t5_max_distance;
  }
  return m;
}

Status validate(const TrainSettings& s) {
  if (auto t = validate(s.task); !t) return t;
  if (s.train_length < 1) return Error{"train: the training length must be at least 1"};
  if (s.min_length < 0 || s.min_length > s.train_length)
    return Error{"train: the shortest training length must be between 1 and the training length (" + std::to_string(s.train_length) + "), not " +
                 std::to_string(s.min_length)};
  if (auto m = validate(resolved_model(s)); !m) return m;
  if (s.steps < 1 || s.batch < 1) return Error{"train: steps and batch must be at least 1"};
  if (!(s.lr > 0.0) || s.warmup < 0 || !(s.min_lr_ratio >= 0.0 && s.min_lr_ratio <= 1.0))
    return Error{"train: the learning rate must be positive, warm-up ≥ 0 and the final ratio in [0, 1]"};
  if (!(s.clip > 0.0) || s.shards < 1 || !(s.init_std > 0.0))
    return Error{"train: clip and init_std must be positive and shards at least 1"};
  if (!(s.adamw.beta1 >= 0.0 && s.adamw.beta1 < 1.0 && s.adamw.beta2 >= 0.0 && s.adamw.beta2 < 1.0 && s.adamw.eps > 0.0 &&
        s.adamw.weight_decay >= 0.0))
    return Error{"train: AdamW needs β₁, β₂ in [0, 1), ε > 0 and a weight decay ≥ 0"};
  return Ok{};
}

double training_bytes(const TrainSettings& s) {
  const TrainModelConfig model = resolved_model(s);
  double parameters = 0.0;
  for (const TensorSpec& t : Params<float>::specs_of(model)) parameters += static_cast<double>(t.rows) * static_cast<double>(t.cols);
  // The weights, the summed gradient, AdamW's two moments and one gradient per shard.
  const double weights = parameters * 4.0 * (4.0 + s.shards);
  const int T = sequence_tokens(s.task, s.train_length);
  const double batch = 3.0 * 4.0 * static_cast<double>(s.batch) * T;  // ids, targets, mask
  return weights + batch + Activations<float>::bytes(model, s.batch, T, true);
}

Status check_training_memory(const TrainSettings& s) {
  return check_memory(training_bytes(s),
                      "training " + std::to_string(s.batch) + " sequences of " + std::to_string(sequence_tokens(s.task, s.train_length)) +
                          " tokens at a time",
                      "lower --batch, --train-length, --width or --layers");
}

template <class S>
Trainer<S>::Trainer(const TrainSettings& settings, Params<S> initial)
    : settings_(settings),
      params_(std::move(initial)),
      grad_(params_.config()),
      engine_(params_.config(), settings.shards),
      adamw_(params_.specs(), settings.adamw) {}

template <class S>
TrainStep Trainer<S>::step(const Batch& batch) {
  const auto start = std::chrono::steady_clock::now();
  TrainStep out;
  out.step = step_;
  out.loss = engine_.loss_and_gradient(params_, batch, grad_);
  out.grad_norm = clip_gradient(grad_.values(), settings_.clip);
  out.lr = learning_rate(Schedule{settings_.lr, settings_.warmup, settings_.steps, settings_.min_lr_ratio}, step_);
  adamw_.update(params_.values(), grad_.values(), out.lr);
  ++step_;
  out.tokens_per_s = static_cast<double>(batch.sequences) * batch.tokens / std::max(seconds_since(start), 1e-9);
  return out;
}

Batch training_batch(const TrainSettings& s, int step) {
  const std::uint64_t seed = mix_seed(mix_seed(s.seed, kBatchStream), static_cast<std::uint64_t>(step));
  if (s.min_length > 0 && s.min_length < s.train_length) return make_mixed_batch(s.task, s.min_length, s.train_length, s.batch, seed);
  return make_batch(s.task, s.train_length, s.batch, seed);
}

Params<float> initial_params(const TrainSettings& s) {
  Params<float> p(resolved_model(s));
  initialize(p, mix_seed(s.seed, kInitStream), s.init_std);
  return p;
}

Result<TrainRun> train(const TrainSettings& settings, const std::function<bool(const TrainStep&)>& on_step) {
  if (auto s = validate(settings); !s) return Error{s.error()};
  if (auto s = check_training_memory(settings); !s) return Error{s.error()};
  const auto start = std::chrono::steady_clock::now();
  Trainer<float> trainer(settings, initial_params(settings));
  std::vector<TrainStep> log;
  bool stopped = false;
  for (int s = 0; s < settings.steps; ++s) {
    const auto step_start = std::chrono::steady_clock::now();
    TrainStep step = trainer.step(training_batch(settings, s));
    // Throughput over the whole step, making the batch included.
    step.tokens_per_s = static_cast<double>(settings.batch) * sequence_tokens(settings.task, settings.train_length) /
                        std::max(seconds_since(step_start), 1e-9);
    log.push_back(step);
    if (on_step && !on_step(step) && s + 1 < settings.steps) {
      stopped = true;
      break;
    }
  }
  TrainRun run{settings, resolved_model(settings), std::move(trainer.params()), std::move(log), seconds_since(start), stopped};
  return run;
}

template class Trainer<float>;
template class Trainer<double>;

}  // namespace poslab

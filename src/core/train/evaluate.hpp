#pragma once
// A trained model on fresh sequences of a task at several lengths: the length-extrapolation
// experiment (train short, test long). RoPE models can be evaluated with a context scaling
// applied at inference, its factor set from the length.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/encodings/rope_scaling.hpp"
#include "core/train/parameters.hpp"
#include "core/model/tasks.hpp"

namespace poslab {

struct EvalRow {
  int length = 0;          // the task's length (copy: symbols; recall: pairs)
  int tokens = 0;          // tokens the model reads
  double loss = std::numeric_limits<double>::quiet_NaN();  // mean −log p over the target tokens
  double accuracy = 0.0;   // exact match: sequences with every target token the argmax
  bool supported = true;   // false: longer than a learned table, or over the memory budget
  std::string refused;     // why it was not run, when it was not (empty for a learned table)
};

struct EvalSettings {
  int sequences = 100;           // per length
  std::uint64_t seed = 20240611; // the sequences of length L come from (seed, L)
  // RoPE only: the scaling applied at inference, with s = tokens / training tokens and
  // L = training tokens (Dynamic NTK then uses base·(s·T/L − (s − 1))^(r/(r−2)) at T tokens).
  // None: the frequencies the model was trained with.
  RopeScalingType scaling = RopeScalingType::None;
};

// 1×, 2×, 4×, 8× and 16× the training length.
std::vector<int> extrapolation_lengths(int train_length);

// The scaling `kind` for `tokens` tokens of a model trained on `train_tokens`.
RopeScaling scaling_for_length(RopeScalingType kind, int tokens, int train_tokens);

// The memory evaluating `length` takes (the batch, each core's activations), checked against the
// budget (base/memory.hpp); evaluate_lengths refuses a length over it in its row.
Status check_evaluation_memory(const TrainModelConfig& config, const Task& task, int length, const EvalSettings& settings);

// One row per length. The sequences are shared between the cores; the sums run in sequence order.
std::vector<EvalRow> evaluate_lengths(const Params<float>& params, const Task& task, int train_length,
                                      const std::vector<int>& lengths, const EvalSettings& settings = {});

}  // namespace poslab

#pragma once
// Haviv et al. 2022 ("Transformer language models without positional encodings still learn
// positional information"): a linear probe reads each token's absolute position off the residual
// stream, layer by layer. PosLab fits one per layer (ridge regression, on every other sentence)
// and scores it on the held-out sentences: R² and the mean absolute error in positions.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "base/matrix.hpp"
#include "base/result.hpp"
#include "core/model/checkpoint.hpp"
#include "core/model/forward.hpp"

namespace poslab {

struct ProbeScore {
  double r2 = 0.0;              // 1 − Σ(t − t̂)² / Σ(t − t̄)² on the held-out tokens (≤ 1; below 0: worse than the mean)
  double mean_abs_error = 0.0;  // mean |t − t̂| in positions
};

// A ridge probe of position from features: fitted on the rows where `train` is 1, scored on the
// others. Features are standardized by the training rows; the fit is in its dual form, so a
// hidden size of thousands costs (training rows)² rather than its square.
Result<ProbeScore> probe_positions(const Matrix& features, const std::vector<double>& positions, const std::vector<std::uint8_t>& train);

struct PositionProbe {
  std::vector<ProbeScore> layers;  // after each layer of the (first) stack
  int sentences = 0, train_tokens = 0, test_tokens = 0;
};

// The sentences PosLab probes when it is given none: varied English, 6 to 40 tokens each.
const std::vector<std::string>& probe_sentences();

// Runs `model` over each sentence (with `v`'s changes), keeps every layer's residual stream and
// probes it; sentences alternate between fitting and scoring. Needs at least four sentences. A
// model with a learned table (GPT-2) reads each sentence as far as its table has positions.
Result<PositionProbe> position_probe(const Checkpoint& model, const std::vector<std::string>& sentences, const PositionIntervention& v,
                                     const std::atomic<bool>* cancel = nullptr, const std::function<void(double)>& progress = {});

}  // namespace poslab

#include "core/train/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/memory.hpp"
#include "base/random.hpp"
#include "core/train/model.hpp"

namespace poslab {

namespace {

struct SequenceScore {
  double loss = 0.0;  // summed over the targets
  bool exact = false;
};

// The sequences of one chunk after model_forward: per sequence the summed loss (from the logits,
// in double) and whether every counted target is the argmax (ties to the lower id).
void score_chunk(const Activations<float>& a, const Batch& b, int first, std::vector<SequenceScore>& out) {
  const auto logits = a.logits.m();
  for (int s = 0; s < a.sequences; ++s) {
    SequenceScore score{0.0, true};
    for (int t = 0; t < a.T; ++t) {
      const std::size_t at = static_cast<std::size_t>(first + s) * static_cast<std::size_t>(b.tokens) + static_cast<std::size_t>(t);
      if (!b.mask[at]) continue;
      const Eigen::RowVectorXd row = logits.row(static_cast<Eigen::Index>(s) * a.T + t).cast<double>();
      Eigen::Index best = 0;
      const double top = row.maxCoeff(&best);
      score.exact = score.exact && best == b.targets[at];
      score.loss += top + std::log((row.array() - top).exp().sum()) - row(b.targets[at]);
    }
    out[static_cast<std::size_t>(first + s)] = score;
  }
}

}  // namespace

std::vector<int> extrapolation_lengths(int train_length) {
  return {train_length, 2 * train_length, 4 * train_length, 8 * train_length, 16 * train_length};
}

RopeScaling scaling_for_length(RopeScalingType kind, int tokens, int train_tokens) {
  RopeScaling s;
  s.type = kind;
  s.factor = std::max(1.0, static_cast<double>(tokens) / train_tokens);
  s.original_max_position = train_tokens;
  return s;
}

namespace {

// Sequences evaluated at once per core: chunks whose attention weights stay near 16 MB.
int eval_chunk(const TrainModelConfig& c, int T) {
  return static_cast<int>(std::clamp(4'000'000.0 / (static_cast<double>(c.heads) * c.layers * T * T), 1.0, 32.0));
}

}  // namespace

Status check_evaluation_memory(const TrainModelConfig& c, const Task& task, int length, const EvalSettings& settings) {
  const int T = sequence_tokens(task, length);
#ifdef _OPENMP
  const double cores = std::max(1, omp_get_max_threads());
#else
  const double cores = 1.0;
#endif
  const double need = cores * Activations<float>::bytes(c, std::min(eval_chunk(c, T), settings.sequences), T, false) +
                      3.0 * 4.0 * static_cast<double>(settings.sequences) * T;
  return check_memory(need, "evaluating length " + std::to_string(length) + " (" + std::to_string(T) + " tokens)",
                      "give shorter --lengths");
}

std::vector<EvalRow> evaluate_lengths(const Params<float>& p, const Task& task, int train_length,
                                      const std::vector<int>& lengths, const EvalSettings& settings) {
  const TrainModelConfig& c = p.config();
  const int train_tokens = sequence_tokens(task, train_length);
  std::vector<EvalRow> rows;
  for (int length : lengths) {
    EvalRow row;
    row.length = length;
    row.tokens = sequence_tokens(task, length);
    const int T = row.tokens;
    if (c.positions == PositionKind::Learned && T > c.max_positions) {
      row.supported = false;  // no trained row for these positions
      rows.push_back(row);
      continue;
    }
    if (auto fits = check_evaluation_memory(c, task, length, settings); !fits) {
      row.supported = false;
      row.refused = fits.error();
      rows.push_back(row);
      continue;
    }
    const RopeScaling scaling = c.positions == PositionKind::Rope ? scaling_for_length(settings.scaling, T, train_tokens)
                                                                  : RopeScaling{};
    const PositionTables<float> pos = make_position_tables<float>(c, T, scaling);
    const Batch b = make_batch(task, length, settings.sequences, mix_seed(settings.seed, static_cast<std::uint64_t>(length)));
    // Chunks of sequences whose attention weights stay near 16 MB.
    const int chunk = eval_chunk(c, T);
    const int chunks = (b.sequences + chunk - 1) / chunk;
    std::vector<SequenceScore> scores(static_cast<std::size_t>(b.sequences));
#pragma omp parallel
    {
      std::unique_ptr<Activations<float>> acts;
#pragma omp for schedule(dynamic, 1)
      for (int k = 0; k < chunks; ++k) {
        const int first = k * chunk, n = std::min(chunk, b.sequences - first);
        if (!acts || acts->sequences != n) acts = std::make_unique<Activations<float>>(c, n, T, false);
        const std::size_t at = static_cast<std::size_t>(first) * static_cast<std::size_t>(T);
        model_forward(p, pos, &b.ids[at], &b.targets[at], &b.mask[at], *acts);
        score_chunk(*acts, b, first, scores);
      }
    }
    double loss = 0.0;
    int exact = 0;
    for (const SequenceScore& s : scores) {
      loss += s.loss;
      exact += s.exact ? 1 : 0;
    }
    row.loss = loss / std::max(b.counted(), 1);
    row.accuracy = static_cast<double>(exact) / std::max(b.sequences, 1);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace poslab

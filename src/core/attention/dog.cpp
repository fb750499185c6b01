#include "core/attention/dog.hpp"

#include <algorithm>

#include "base/random.hpp"
#include "core/formats/tokenizer.hpp"

namespace poslab {

Result<std::vector<DogCase>> dog_cases(const ModelSettings& settings, const EmbeddingTable& table) {
  struct Spec {
    const char* name;
    EncodingKind encoding;
    bool causal;
  };
  const Spec specs[] = {{"no positions, no mask", EncodingKind::None, false},
                        {"no positions, causal mask", EncodingKind::None, true},
                        {"sinusoidal, no mask", EncodingKind::Sinusoidal, false},
                        {"RoPE, no mask", EncodingKind::Rope, false}};
  std::vector<DogCase> cases;
  CpuBackend cpu;
  for (const Spec& spec : specs) {
    ModelSettings s = settings;
    s.encoding = spec.encoding;
    s.causal = spec.causal;
    s.bias = BiasKind::None;  // the seed's demo has no bias
    s.cross_sentence.clear();
    auto r = run_pipeline(s, table, cpu, false);
    if (!r) return Error{r.error()};
    const auto pair = first_repeated_token(r->tokens);
    if (!pair) return Error{"the sentence repeats no word: the dog demo needs one (\"The dog chased another dog\")"};
    DogCase c{spec.name, spec.encoding, spec.causal, compare_outputs(r->attention.output, pair->first, pair->second),
              Matrix(2, r->attention.output.cols())};
    c.outputs.row(0) = r->attention.output.row(pair->first);
    c.outputs.row(1) = r->attention.output.row(pair->second);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<int> shuffled_order(int count, std::uint64_t seed) {
  std::vector<int> order(static_cast<std::size_t>(std::max(count, 0)));
  for (int k = 0; k < count; ++k) order[static_cast<std::size_t>(k)] = k;
  if (count < 2) return order;
  Rng rng(mix_seed(seed, 31));
  for (int k = count - 1; k > 0; --k) {  // Fisher–Yates
    const auto j = static_cast<int>(rng.next_u64() % static_cast<std::uint64_t>(k + 1));
    std::swap(order[static_cast<std::size_t>(k)], order[static_cast<std::size_t>(j)]);
  }
  bool moved = false;
  for (int k = 0; k < count; ++k) moved = moved || order[static_cast<std::size_t>(k)] != k;
  if (!moved) std::rotate(order.begin(), order.begin() + 1, order.end());  // never the identity
  return order;
}

namespace {

// Outputs of the sentence and of its shuffle under `s`; the shuffle permutes the input rows, so
// any position information (RoPE) stays with the position, not with the token.
Result<std::pair<Matrix, Matrix>> outputs_before_after(const ModelSettings& s, const EmbeddingTable& table,
                                                       const std::vector<int>& order) {
  auto input = prepare_input(s, table);
  if (!input) return Error{input.error()};
  AttentionProblem shuffled = input->problem;
  for (std::size_t k = 0; k < order.size(); ++k) shuffled.Xq.row(static_cast<Eigen::Index>(k)) = input->problem.Xq.row(order[k]);
  shuffled.Xkv = shuffled.Xq;
  return std::pair{solve_cpu(input->problem).output, solve_cpu(shuffled).output};
}

double max_reordered_difference(const Matrix& before, const Matrix& after, const std::vector<int>& order) {
  double worst = 0.0;
  for (std::size_t k = 0; k < order.size(); ++k)
    worst = std::max(worst, static_cast<double>((after.row(static_cast<Eigen::Index>(k)) - before.row(order[k])).cwiseAbs().maxCoeff()));
  return worst;
}

}  // namespace

Result<PermutationCheck> permutation_check(const ModelSettings& settings, const EmbeddingTable& table,
                                           std::uint64_t shuffle_seed) {
  ModelSettings s = settings;
  s.encoding = EncodingKind::None;
  s.causal = false;
  s.bias = BiasKind::None;
  s.pad_to = 0;
  s.cross_sentence.clear();
  const auto tokens = tokenize(s.sentence, table);
  if (tokens.size() < 2) return Error{"the permutation needs a sentence of at least two tokens"};
  PermutationCheck check;
  check.order = shuffled_order(static_cast<int>(tokens.size()), shuffle_seed);
  for (const auto& t : tokens) check.tokens.push_back(t.text);
  auto none = outputs_before_after(s, table, check.order);
  if (!none) return Error{none.error()};
  check.outputs = none->first;
  check.shuffled_outputs = none->second;
  check.max_abs_diff_none = max_reordered_difference(none->first, none->second, check.order);
  check.scale = none->first.cwiseAbs().maxCoeff();
  s.encoding = EncodingKind::Rope;
  auto rope = outputs_before_after(s, table, check.order);
  if (!rope) return Error{rope.error()};
  check.max_abs_diff_rope = max_reordered_difference(rope->first, rope->second, check.order);
  return check;
}

}  // namespace poslab

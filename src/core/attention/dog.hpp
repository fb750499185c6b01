#pragma once
// The dog demo of seed 000: the outputs of two occurrences of the same word, with and without
// positions and the causal mask. Without positions and without a mask they are identical —
// self-attention is permutation-equivariant; positions, or a causal mask that shows each
// occurrence a different prefix, make them differ.
#include <string>
#include <vector>

#include "core/attention/pipeline.hpp"

namespace poslab {

struct DogCase {
  std::string name;       // e.g. "no positions, no mask"
  EncodingKind encoding;  // none, sinusoidal or rope
  bool causal = false;
  OutputComparison comparison;
  Matrix outputs;  // 2 × d: the two occurrences' outputs
};

// The four cases of the seed on `settings` (its sentence, heads, projections and seed), on the
// CPU. Fails when the sentence repeats no word.
Result<std::vector<DogCase>> dog_cases(const ModelSettings& settings, const EmbeddingTable& table);

// The other half of the demo: shuffle the sentence's tokens and run attention again. Without
// positions and without a mask, the outputs are the same rows in the shuffled order
// (permutation equivariance); with RoPE they are not.
struct PermutationCheck {
  std::vector<int> order;                // position k of the shuffled sentence holds token order[k]
  std::vector<std::string> tokens;       // the sentence's tokens in their own order
  Matrix outputs, shuffled_outputs;      // T × d each, no positions, no mask
  double max_abs_diff_none = 0.0;        // max over k of |shuffled_outputs[k] − outputs[order[k]]|
  double max_abs_diff_rope = 0.0;        // the same with RoPE: the positions see the shuffle
  double scale = 0.0;                    // max |output component|, to judge the differences against
};

// A seeded shuffle of the first T tokens that moves at least one token (T ≥ 2).
std::vector<int> shuffled_order(int count, std::uint64_t seed);

Result<PermutationCheck> permutation_check(const ModelSettings& settings, const EmbeddingTable& table,
                                           std::uint64_t shuffle_seed);

}  // namespace poslab

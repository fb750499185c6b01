#pragma once
// The dog demo of seed 000: the outputs of two occurrences of the same word, with and without
// positions and the causal mask. Without positions and without a mask they are identical —
// self-attention is permutation-equivariant; positions, or a causal mask that shows each
// occurrence a different prefix, make them differ.
#include <string>
#include <vector>

#include "core/pipeline.hpp"

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

}  // namespace poslab

#pragma once
// What positions add, computed once for both forward passes: a checkpoint's (core/model/forward)
// and training's (core/train/model). They must agree to the bit, since a model PosLab trains is
// evaluated by one and reopened by the other; docs/FORMULAS.md gives each formula.
#include <vector>

#include "core/encodings/rope_scaling.hpp"

namespace poslab {

// RoPE's angle per pair: θᵢ = base^(−2i/r) for the rotary width r, changed by `scaling` (`length`
// is Dynamic NTK's T), then p-RoPE: the slowest share 1 − fraction of the pairs set to θ = 0 (they
// do not rotate). attention_scale is YaRN's temperature (1 otherwise).
RopeFrequencies rotary_angles(int rotary_dim, double base, const RopeScaling& scaling, int length, double fraction);

// ALiBi's bias −m_h·δ of head h at causal distance δ = i − j, for δ = 0 … distances − 1:
// heads × distances, row-major.
std::vector<double> alibi_by_distance(int heads, int distances);

// T5's bucket of each key − query offset o = j − i, for o = −(T − 1) … T − 1 (index o + T − 1):
// a causal model's buckets (`bidirectional` false) or an encoder's.
std::vector<int> t5_buckets_by_offset(int T, bool bidirectional, int buckets, int max_distance);

}  // namespace poslab

#pragma once
// A head's score by rotary pair (RoFormer §3.4.3's view of RoPE): q·k/√d is exactly a sum over
// the head's dimensions, and RoPE pairs them, so every score splits into one part per rotary pair
// (its two products) plus the dimensions RoPE does not rotate (a partial rotary's rest, DeepSeek's
// content part). Which pairs carry a head's pattern, and at which distances: the lens behind
// `poslab export pair-scores`.
#include <vector>

#include "base/matrix.hpp"
#include "base/result.hpp"
#include "core/model/forward.hpp"

namespace poslab {

struct PairScores {
  std::vector<double> thetas;  // per pair: the angle it turns by per position (0: it does not turn here)
  std::vector<Matrix> parts;   // per pair, T_q × T_k: its part of each score, 0 where the key is masked
  Matrix rest;                 // the dimensions no pair holds, likewise; empty when every dimension is paired
};

// Head `head` of a kept layer whose queries and keys were kept (ForwardOptions::keep_qk), split
// by the pairs of that layer's RoPE as `v` ran it (its pairing, rotated width and angles) over
// `tokens` tokens. The parts of a seen cell sum to its score, before Gemma 2's soft-cap and
// without ALiBi's or T5's bias (which no RoPE model here has).
Result<PairScores> pair_scores(const LayerAttention& a, const TransformerConfig& c, const PositionIntervention& v, int head, int tokens);

}  // namespace poslab

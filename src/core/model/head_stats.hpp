#pragma once
// What a layer's attention and a head's rotary pairs are used for, summed up for the views.
#include <vector>

#include "base/matrix.hpp"
#include "core/model/transformer_config.hpp"

namespace poslab {

struct HeadSummary;

// Where a head looks (sink, distance, previous token, induction) from its T × T weights.
HeadSummary summarize(const Matrix& A, const std::vector<int>& ids);

// Barbero et al. 2024: per head and rotary pair, the mean over positions of ‖q_i‖·‖k_i‖ — the
// frequencies a head uses — with the checkpoint's own pairing (rotate-half: i and i + r/2;
// interleaved: 2i and 2i + 1), over the layer's own heads (`shape`: Gemma 4's full layers are wider).
Matrix frequency_usage(const Matrix& Q, const Matrix& K, const TransformerConfig& c, const TransformerConfig::LayerShape& shape);

}  // namespace poslab

#pragma once
// What a T5 model learned about distance: each head's learned bias at every relative position
// j − i, through the bucket that position falls in (docs/FORMULAS.md, T5's buckets) — the
// encoder's both ways, the decoder's over the past only. Shown beside the heads that use it.
#include <string>

#include "core/model/forward.hpp"
#include "core/model/transformer_config.hpp"
#include "plot/figure.hpp"

namespace poslab {

// One line per head over j − i = −max_distance … max_distance (the decoder: … 0); an empty
// figure (width 0) when the run has no bucket table (not T5, or cross-attention).
plot::Figure t5_buckets_figure(const ForwardResult& run, const TransformerConfig& config, float width);

// The same numbers: head,relative_position,bucket,bias — one row per head and position.
std::string t5_buckets_csv(const ForwardResult& run, const TransformerConfig& config);

}  // namespace poslab

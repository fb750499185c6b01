#pragma once
// What a T5 model learned about distance: each head's learned bias at every relative position
// j − i, through the bucket that position falls in (docs/FORMULAS.md, T5's buckets) — the
// encoder's both ways, the decoder's over the past only. Shown beside the heads that use it.
#include <string>

#include "base/matrix.hpp"
#include "core/model/transformer_config.hpp"
#include "plot/figure.hpp"

namespace poslab {

// One line per head over j − i = −max_distance … max_distance (one-way: … 0) of a stack's table
// (buckets × heads; `whose`: "the encoder's ", say); an empty figure (width 0) for an empty table.
plot::Figure t5_buckets_figure(const Matrix& table, bool bidirectional, const std::string& whose, const TransformerConfig& config,
                               float width);

}  // namespace poslab

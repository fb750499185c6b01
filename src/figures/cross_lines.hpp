#pragma once
// T5's cross-attention between its two texts as BertViz's head view draws it: the decoder's
// tokens in a column on the left, the encoder's on the right, and from each decoder token a line
// to each encoder token, as opaque as the weight it gives it — which words of the input each
// output word reads, and (beside the changed model's) how that moves when the positions do.
#include <string>
#include <vector>

#include "core/model/forward.hpp"
#include "plot/figure.hpp"

namespace poslab {

// One head's lines (`head` < 0: the mean of the heads) of a cross-attention layer; an empty
// figure (width 0) for any other attention.
plot::Figure cross_lines_figure(const LayerAttention& cross, const std::vector<std::string>& decoder_tokens,
                                const std::vector<std::string>& encoder_tokens, int head, const std::string& title);

}  // namespace poslab

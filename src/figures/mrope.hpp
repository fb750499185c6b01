#pragma once
// M-RoPE's layout (Qwen2-VL, Qwen2.5-VL, Qwen3-VL), which no other tool draws: which rotary pairs
// turn by t, h and w (the model's sections beside the other arrangement), and the (t, h, w) ids
// of a synthetic text + image + text sequence as the model's get_rope_index assigns them.
#include <string>
#include <vector>

#include "core/encodings/mrope.hpp"
#include "core/model/transformer_config.hpp"
#include "plot/figure.hpp"

namespace poslab {

// The layout drawn when --layout is not given.
inline constexpr const char* kDefaultMropeLayout = "text:5,image:4x6,text:3";

// The figure for a model with M-RoPE (config.mrope_section), `width` logical pixels wide.
plot::Figure mrope_figure(const TransformerConfig& config, const std::vector<MropeToken>& ids, const std::string& layout, float width);

// index,kind,t,h,w: one row per token of the layout.
std::string mrope_csv(const std::vector<MropeToken>& ids);

}  // namespace poslab

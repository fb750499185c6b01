#pragma once
// M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): each rotary pair turns by one of three position ids,
// time t, height h and width w (docs/FORMULAS.md). Which pair reads which id is the model's
// mrope_section, laid out in sections (t's pairs, then h's, then w's: Qwen2-VL, Qwen2.5-VL) or
// interleaved (t, h, w, t, h, w, …, the rest t: Qwen3-VL). A text token's three ids are equal,
// so on text M-RoPE is 1-D RoPE; an image's tokens share t and count h and w over their grid.
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace poslab {

enum class MropeAxis { T = 0, H = 1, W = 2 };

// The axis each of the sum(section) rotary pairs reads.
std::vector<MropeAxis> mrope_pair_axes(const std::vector<int>& section, bool interleaved);

// A synthetic sequence: runs of text tokens and images, e.g. "text:5,image:4x6,text:3". An
// image's H×W is its grid in vision patches; the language model sees (H/m)·(W/m) tokens for the
// vision tower's spatial merge m.
struct MropeSegment {
  bool image = false;
  int length = 0;          // text tokens
  int grid_h = 0, grid_w = 0;  // an image's patch grid
};
Result<std::vector<MropeSegment>> parse_mrope_layout(std::string_view text, int spatial_merge);

struct MropeToken {
  bool image = false;
  int t = 0, h = 0, w = 0;
};

// The (t, h, w) ids of every token as the model's get_rope_index assigns them: text tokens count
// on from the largest id so far + 1 on all three axes; an image's tokens start there too, t fixed,
// h and w over the merged grid (row by row).
std::vector<MropeToken> mrope_position_ids(const std::vector<MropeSegment>& layout, int spatial_merge);

}  // namespace poslab

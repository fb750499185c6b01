#pragma once
// n-D RoPE on an image (Heo et al. 2024): the score from one patch to every patch of a W × H grid,
// with one and the same vector as q and k of every patch, so that only the positions speak.
#include <cstdint>

#include "base/matrix.hpp"
#include "core/encodings/rope_nd.hpp"

namespace poslab {

// H × W scores q(px, py)·k(x, y)/√d_h under axial or mixed 2-D RoPE (mixed: head 0's directions).
Matrix rope_image_scores(int width, int height, int px, int py, Rope2d kind, int head_dim, double base,
                         std::uint64_t seed);

}  // namespace poslab

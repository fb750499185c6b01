#pragma once
// RoPE on a W × H grid of image patches (Heo et al. 2024, naver-ai/rope-vit). Pairs are
// interleaved, (x₂ᵢ, x₂ᵢ₊₁), as rope-vit's view_as_complex; angles are formed in double.
#include <cstdint>
#include <span>
#include <vector>

#include "base/matrix.hpp"

namespace poslab {

// How 2-D RoPE turns a grid position: x and y on separate pairs (axial), or every pair by
// x·fx + y·fy with directions drawn per head (mixed).
enum class Rope2d { Axial, Mixed };

struct GridPosition {
  int x = 0, y = 0;
  bool cls = false;  // the class token: no grid position, never rotated
};

// Positions of the tokens of a width × height patch grid in raster order: patch t sits at
// (t mod W, t div W); with_cls puts a class token first.
std::vector<GridPosition> patch_grid(int width, int height, bool with_cls);

// Axial frequencies θᵢ = base^(−4i/head_dim) for i < head_dim/4 (rope-vit compute_axial_cis:
// arange(0, dim, 4)[:dim//4] / dim).
std::vector<double> axial_thetas(int head_dim, double base);

// Axial 2-D RoPE in place on one head's X (tokens × head_dim, row t at pos[t]): pairs 0 … q−1 rotate by x·θᵢ, pairs
// q … 2q−1 by y·θᵢ, q = head_dim/4; the axes never mix. CLS rows are left as they are. When
// head_dim is not a multiple of 4, the trailing head_dim mod 4 columns are not rotated.
void apply_rope_axial(Eigen::Ref<Matrix> X, std::span<const GridPosition> pos, double base);

// Per-head frequency directions of mixed RoPE: pair i rotates by x·fx[i] + y·fy[i].
struct MixedFrequencies {
  std::vector<double> fx, fy;  // 2·(head_dim/4) pairs each
};

// rope-vit's init_random_2d_freqs for one head: mag = base^(−arange(0, dim, 4)[:dim//4]/dim),
// φ uniform in [0, 2π) drawn from (seed, head); fx = cat(mag·cos φ, mag·cos(φ + π/2)),
// fy = cat(mag·sin φ, mag·sin(φ + π/2)).
MixedFrequencies mixed_frequencies(int head_dim, double base, std::uint64_t seed, int head);

// Mixed 2-D RoPE in place: pair i of each non-CLS row rotates by x·fx[i] + y·fy[i]; columns
// past 2·fx.size() (and CLS rows) are left as they are.
void apply_rope_mixed(Eigen::Ref<Matrix> X, std::span<const GridPosition> pos,
                      const MixedFrequencies& f);

}  // namespace poslab

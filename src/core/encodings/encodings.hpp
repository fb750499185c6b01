#pragma once
// Positional encodings, exactly as docs/FORMULAS.md defines them. Every angle p·θᵢ is
// formed in double precision and rounded to float only at the end.
#include <span>
#include <vector>

#include "base/matrix.hpp"

namespace poslab {

// Additive kinds are added to the embeddings before the projections; RoPE rotates q and k.
enum class EncodingKind { None, Integer, Normalized, Binary, Sinusoidal, Learned, Rope };
enum class RopeStyle { Interleaved, Half };

// θᵢ = base^(−2i/dim) for i = 0 … dim/2 − 1.
std::vector<double> rope_thetas(int dim, double base);

// T × d sinusoidal table: PE(p, 2i) = sin(p·θᵢ), PE(p, 2i+1) = cos(p·θᵢ), θᵢ = base^(−2i/d).
Matrix sinusoidal_encoding(int positions, int d, double base);

// Rotates the pairs of every row of X (T × width) in place, row t by angle positions[t]·θᵢ.
// Interleaved: pair i is (x₂ᵢ, x₂ᵢ₊₁). Half: pair i is (xᵢ, x_{i+r/2}) with r = rotary width.
// Only the first 2·thetas.size() columns rotate; any further column is left as it is.
void apply_rope(Eigen::Ref<Matrix> X, std::span<const int> positions,
                const std::vector<double>& thetas, RopeStyle style);

// The rotary width used for a head of width d_h: d_h, or d_h − 1 when d_h is odd (the last
// dimension of the head is then not rotated, as with partial rotary embeddings).
int rotary_width(int head_dim);

// The permutation that maps interleaved RoPE onto rotate-half RoPE: for x in interleaved order,
// y[perm[j]] = x[j] puts the same pairs where rotate-half expects them.
std::vector<int> interleaved_to_half_permutation(int width);

}  // namespace poslab

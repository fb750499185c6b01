#pragma once
// RoPE on the plane (seed 000 and RoFormer): one pair of q and k turned by mθᵢ and nθᵢ, the
// score (R_m q)·(R_n k) as a function of n − m, and RoFormer's long-term decay bound.
#include <array>
#include <vector>

#include "base/matrix.hpp"

namespace poslab {

// (x, y) turned counter-clockwise by angle a: (x cos a − y sin a, x sin a + y cos a).
std::array<double, 2> rotate2(std::array<double, 2> v, double angle);

// Σᵢ (R_{mθᵢ} qᵢ)·(R_{nθᵢ} kᵢ) over the pairs of q and k (interleaved, width 2·thetas.size()).
double rope_score(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& thetas, int m,
                  int n);

// RoFormer's bound on |Σ| against relative distance r: (1/(d/2)) Σⱼ |Σ_{i<j} e^{i r θᵢ}|.
double rope_decay_bound(const std::vector<double>& thetas, int distance);

}  // namespace poslab

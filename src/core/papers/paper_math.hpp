#pragma once
// The mathematics behind "Papers, checked" (docs/PAPERS.md): each function is one quantity of
// one paper, computed from its formula alone (no trained model), in double precision.
#include <cstdint>
#include <vector>

namespace poslab {

// RoFormer §3.4.3 (Su et al. 2021): the relative upper bound (1/(d/2))·Σ_{j=1}^{d/2} |S_j| with
// S_j = Σ_{k<j} e^{i·m·θ_k}, θ_k = base^(−2k/d), for m = 0 … max_m. At m = 0 it is (d/2 + 1)/2.
std::vector<double> roformer_relative_bound(int d, double base, int max_m);

// Barbero et al. 2024: the mean over `samples` Gaussian draws q, k ~ N(0, I_d) of q·R(m)k, with
// R(m) PosLab's RoPE (apply_rope, interleaved pairs); same: k = q. Seeded, so repeatable.
double mean_rotated_score(int d, double base, int m, int samples, std::uint64_t seed, bool same);
// The closed form of the same-vector case: E[q·R(m)q] = 2·Σᵢ cos(m·θᵢ).
double same_vector_expected_score(int d, double base, int m);

// Men et al. 2024: B(m) = Σᵢ cos(m·θᵢ). The first m in [0, L] with B(m) < 0, or −1 when B stays
// ≥ 0 up to L (a rotation recurrence, re-anchored on exact cos/sin every 1024 steps).
long first_negative_cos_sum(int d, double base, long L);

// The smallest base on the geometric grid start·ratio^k (k = 0, 1, …) for which B(m) ≥ 0 for every
// m ≤ L, refined by bisection on log(base) between it and the grid point before; 0 when none is
// found below max_base. The set of such bases is not an interval (narrow windows pass below the
// first wide one), so the grid must be fine: docs/PAPERS.md.
double smallest_nonnegative_base(int d, long L, double start, double ratio, double max_base);

// The same for increasing lengths, each search starting where the previous one ended (a base that
// keeps B ≥ 0 up to L keeps it up to any shorter length, so none below can pass).
std::vector<double> smallest_nonnegative_bases(int d, const std::vector<long>& lengths, double ratio);

// Liu et al. 2023: the critical dimension d_extra = 2·⌈(d/2)·log_base(T_train / 2π)⌉ and the
// extrapolation bound T_extra = 2π·base^(d_extra/d).
int critical_dimension(int d, double base, double train_length);
double extrapolation_bound(int d, double base, int d_extra);
// The number of dimensions (2 per pair) whose period 2π/θᵢ (PosLab's rope_thetas) is at most T.
int dimensions_with_full_period(int d, double base, double train_length);

// YaRN (Peng et al. 2023), for rotary width d, base, original length L and factor s, per pair i:
// the share h of interpolation in θ'ᵢ = (1 − h)·θᵢ + h·θᵢ/s.
//   PosLab's: read back from rope_frequencies (its own YaRN code);
//   the paper's eq.: h = 1 − γ(r), r = L·θᵢ/2π, γ linear in r from α = β_slow to β = β_fast;
//   the authors' code (jquesnelle/yarn): h linear in i between ⌊index(β_fast)⌋ and ⌈index(β_slow)⌉.
std::vector<double> yarn_share_poslab(int d, double base, int L, double s);
std::vector<double> yarn_share_paper(int d, double base, int L, double beta_fast, double beta_slow);
std::vector<double> yarn_share_code(int d, double base, int L, double beta_fast, double beta_slow);
// PosLab's attention temperature for factor s (rope_frequencies' attention_scale): √(1/t).
double yarn_temperature_poslab(double s);

}  // namespace poslab

#pragma once
// Seed 000's shift matrix: for the pair (sin ωp, cos ωp) of the sinusoidal encoding,
// M_k = [[cos ωk, sin ωk], [−sin ωk, cos ωk]] gives (sin ω(p+k), cos ω(p+k)) for every p: a
// linear map that depends on the offset k only. In the usual (x, y) orientation it is a rotation
// by −ωk (clockwise); RoPE's matrix turns the other way.
#include <array>
#include <vector>

namespace poslab {

struct ShiftPair {
  double omega = 0.0;                  // ωᵢ = base^(−2i/d)
  std::array<double, 4> matrix{};      // M_k row by row
  double max_residual = 0.0;           // max over p of ‖PE(p+k) − M_k·PE(p)‖ on this pair
};

// Every pair of a d-wide sinusoidal table, checked on positions 0 … positions − 1 (the table is
// float, as the app uses it, so the residual shows float rounding only).
std::vector<ShiftPair> shift_check(int d, double base, int k, int positions);

}  // namespace poslab

#include "core/encodings/shift.hpp"

#include <algorithm>
#include <cmath>

#include "core/encodings/encodings.hpp"

namespace poslab {

std::vector<ShiftPair> shift_check(int d, double base, int k, int positions) {
  const Matrix pe = sinusoidal_encoding(positions + k, d, base);  // (positions + k) × d
  std::vector<ShiftPair> pairs(static_cast<std::size_t>(d / 2));
  for (int i = 0; i < d / 2; ++i) {
    ShiftPair& s = pairs[static_cast<std::size_t>(i)];
    s.omega = std::pow(base, -2.0 * i / d);
    const double c = std::cos(s.omega * k), n = std::sin(s.omega * k);
    s.matrix = {c, n, -n, c};
    for (int p = 0; p < positions; ++p) {
      const double sp = pe(p, 2 * i), cp = pe(p, 2 * i + 1);
      const double ds = pe(p + k, 2 * i) - (c * sp + n * cp);
      const double dc = pe(p + k, 2 * i + 1) - (-n * sp + c * cp);
      s.max_residual = std::max(s.max_residual, std::hypot(ds, dc));
    }
  }
  return pairs;
}

}  // namespace poslab

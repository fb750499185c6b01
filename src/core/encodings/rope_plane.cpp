#include "core/encodings/rope_plane.hpp"

#include <cmath>
#include <complex>

namespace poslab {

std::array<double, 2> rotate2(std::array<double, 2> v, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  return {v[0] * c - v[1] * s, v[0] * s + v[1] * c};
}

double rope_score(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& thetas, int m,
                  int n) {
  double score = 0.0;
  for (std::size_t i = 0; i < thetas.size(); ++i) {
    const auto qi = rotate2({q[2 * i], q[2 * i + 1]}, m * thetas[i]);
    const auto ki = rotate2({k[2 * i], k[2 * i + 1]}, n * thetas[i]);
    score += qi[0] * ki[0] + qi[1] * ki[1];
  }
  return score;
}

double rope_decay_bound(const std::vector<double>& thetas, int distance) {
  std::complex<double> partial = 0.0;
  double sum = 0.0;
  for (double theta : thetas) {
    partial += std::polar(1.0, distance * theta);
    sum += std::abs(partial);
  }
  return thetas.empty() ? 0.0 : sum / static_cast<double>(thetas.size());
}

}  // namespace poslab

#include "core/encodings/encodings.hpp"

#include <cmath>

namespace poslab {

std::vector<double> rope_thetas(int dim, double base) {
  std::vector<double> thetas(static_cast<std::size_t>(dim / 2));
  for (std::size_t i = 0; i < thetas.size(); ++i)
    thetas[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(dim));
  return thetas;
}

Matrix sinusoidal_encoding(int positions, int d, double base) {
  Matrix pe(positions, d);
  for (int p = 0; p < positions; ++p) {
    for (int j = 0; j < d; ++j) {
      const int i = j / 2;
      const double theta = std::pow(base, -2.0 * i / static_cast<double>(d));
      const double angle = static_cast<double>(p) * theta;
      pe(p, j) = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

void apply_rope(Eigen::Ref<Matrix> X, std::span<const int> positions,
                const std::vector<double>& thetas, RopeStyle style) {
  const int pairs = static_cast<int>(thetas.size());
  for (Eigen::Index t = 0; t < X.rows(); ++t) {
    const double p = positions[static_cast<std::size_t>(t)];
    for (int i = 0; i < pairs; ++i) {
      const double angle = p * thetas[static_cast<std::size_t>(i)];
      const double c = std::cos(angle), s = std::sin(angle);
      const int a = style == RopeStyle::Interleaved ? 2 * i : i;
      const int b = style == RopeStyle::Interleaved ? 2 * i + 1 : i + pairs;
      const double x = X(t, a), y = X(t, b);
      X(t, a) = static_cast<float>(x * c - y * s);
      X(t, b) = static_cast<float>(x * s + y * c);
    }
  }
}

int rotary_width(int head_dim) { return head_dim - head_dim % 2; }

std::vector<int> interleaved_to_half_permutation(int width) {
  std::vector<int> perm(static_cast<std::size_t>(width));
  const int pairs = width / 2;
  for (int j = 0; j < width; ++j) {
    if (j >= 2 * pairs) {
      perm[static_cast<std::size_t>(j)] = j;  // an odd trailing dimension stays put
    } else {
      perm[static_cast<std::size_t>(j)] = j % 2 == 0 ? j / 2 : j / 2 + pairs;
    }
  }
  return perm;
}

}  // namespace poslab

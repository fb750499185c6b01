#include "core/encodings/rope_nd.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "base/random.hpp"

namespace poslab {

namespace {

// Rotates the interleaved pair i of row t counter-clockwise by `angle` (RoPE's convention).
void rotate_pair(Eigen::Ref<Matrix> X, Eigen::Index t, int i, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  const double a = X(t, 2 * i), b = X(t, 2 * i + 1);
  X(t, 2 * i) = static_cast<float>(a * c - b * s);
  X(t, 2 * i + 1) = static_cast<float>(a * s + b * c);
}

// Rows that have a position: a shorter `pos` leaves the remaining rows alone, never read past it.
Eigen::Index rows_with_position(const Eigen::Ref<Matrix>& X, std::span<const GridPosition> pos) {
  return std::min<Eigen::Index>(X.rows(), static_cast<Eigen::Index>(pos.size()));
}

// Never more pairs than X has columns for, whatever the frequencies say.
int usable_pairs(const Eigen::Ref<Matrix>& X, std::size_t pairs) {
  return static_cast<int>(std::min<Eigen::Index>(static_cast<Eigen::Index>(pairs), X.cols() / 2));
}

}  // namespace

std::vector<GridPosition> patch_grid(int width, int height, bool with_cls) {
  std::vector<GridPosition> grid;
  if (with_cls) grid.push_back(GridPosition{0, 0, true});
  for (int t = 0; t < width * height; ++t) grid.push_back(GridPosition{t % width, t / width});
  return grid;
}

std::vector<double> axial_thetas(int head_dim, double base) {
  std::vector<double> thetas(static_cast<std::size_t>(std::max(head_dim / 4, 0)));
  for (std::size_t i = 0; i < thetas.size(); ++i)
    thetas[i] = std::pow(base, -4.0 * static_cast<double>(i) / static_cast<double>(head_dim));
  return thetas;
}

void apply_rope_axial(Eigen::Ref<Matrix> X, std::span<const GridPosition> pos, double base) {
  const auto thetas = axial_thetas(static_cast<int>(X.cols()), base);
  const int q = static_cast<int>(thetas.size());
  const Eigen::Index rows = rows_with_position(X, pos);
  for (Eigen::Index t = 0; t < rows; ++t) {
    const GridPosition& p = pos[static_cast<std::size_t>(t)];
    if (p.cls) continue;
    for (int i = 0; i < q; ++i) {
      rotate_pair(X, t, i, p.x * thetas[static_cast<std::size_t>(i)]);
      rotate_pair(X, t, q + i, p.y * thetas[static_cast<std::size_t>(i)]);
    }
  }
}

MixedFrequencies mixed_frequencies(int head_dim, double base, std::uint64_t seed, int head) {
  const auto mag = axial_thetas(head_dim, base);  // the same magnitudes as the axial form
  Rng rng(mix_seed(seed, static_cast<std::uint64_t>(head)));
  const double phi = 2.0 * std::numbers::pi * rng.uniform();
  MixedFrequencies f;
  for (double angle : {phi, phi + std::numbers::pi / 2.0}) {
    for (double m : mag) {
      f.fx.push_back(m * std::cos(angle));
      f.fy.push_back(m * std::sin(angle));
    }
  }
  return f;
}

void apply_rope_mixed(Eigen::Ref<Matrix> X, std::span<const GridPosition> pos,
                      const MixedFrequencies& f) {
  const int pairs = usable_pairs(X, std::min(f.fx.size(), f.fy.size()));
  const Eigen::Index rows = rows_with_position(X, pos);
  for (Eigen::Index t = 0; t < rows; ++t) {
    const GridPosition& p = pos[static_cast<std::size_t>(t)];
    if (p.cls) continue;
    for (int i = 0; i < pairs; ++i) {
      const auto k = static_cast<std::size_t>(i);
      rotate_pair(X, t, i, p.x * f.fx[k] + p.y * f.fy[k]);
    }
  }
}

}  // namespace poslab

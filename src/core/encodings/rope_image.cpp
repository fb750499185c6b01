#include "core/encodings/rope_image.hpp"

#include <cmath>

#include "base/random.hpp"
#include "core/encodings/rope_nd.hpp"

namespace poslab {

Matrix rope_image_scores(int width, int height, int px, int py, Rope2d kind, int head_dim, double base,
                         std::uint64_t seed) {
  const auto grid = patch_grid(width, height, false);  // patch t at (t mod W, t div W)
  const Matrix v = gaussian_matrix(1, head_dim, 1.0, mix_seed(seed, 21));
  Matrix X = v.replicate(width * height, 1);  // every patch holds the same content
  if (kind == Rope2d::Axial) apply_rope_axial(X, grid, base);
  else apply_rope_mixed(X, grid, mixed_frequencies(head_dim, base, seed, 0));
  const Eigen::VectorXf from = X.row(py * width + px).transpose();
  const Eigen::VectorXf scores = (X * from) / std::sqrt(static_cast<float>(head_dim));  // (W·H)
  return Eigen::Map<const Matrix>(scores.data(), height, width);
}

}  // namespace poslab

#pragma once
// The trajectory of a token through position space: the points x(p) = e + PE(p) for a range of
// positions, seen in two chosen dimensions or in the plane of their two principal components.
// Why it matters (seed 000): a binary code jumps when many bits flip at once, a sinusoid moves by
// the same distance at every step.
#include <vector>

#include "base/matrix.hpp"
#include "base/result.hpp"

namespace poslab {

enum class TrajectoryPlane { Pca, Dims };  // the trajectory view: a PCA plane or two dimensions

struct Trajectory {
  Eigen::MatrixX2d points;     // positions × 2: each x(p) in the plane
  std::vector<double> steps;   // ‖x(p) − x(p − 1)‖ in all d dimensions, for p = 1 … positions − 1
  double explained = 0.0;      // the share of the path's variance that the plane shows
  Eigen::MatrixX2d axes;       // d × 2: the plane's orthonormal directions
};

// `embedding` is 1 × d, `encoding` positions × d (row p = PE(p)). For Dims, dim_x and dim_y pick
// the axes; for Pca they are ignored. The PCA directions are signed so that each one's largest
// component is positive, which keeps the picture from flipping as the settings change.
Result<Trajectory> trajectory(const Matrix& embedding, const Matrix& encoding, TrajectoryPlane plane, int dim_x,
                              int dim_y);

}  // namespace poslab

#include "core/encodings/trajectory.hpp"

#include <string>

namespace poslab {

namespace {

// d × 2 unit vectors along two coordinate axes.
Eigen::MatrixX2d coordinate_axes(Eigen::Index d, int x, int y) {
  Eigen::MatrixX2d axes = Eigen::MatrixX2d::Zero(d, 2);
  axes(x, 0) = 1.0;
  axes(y, 1) = 1.0;
  return axes;
}

// The two leading principal directions of the rows of `centered`, and their share of the variance.
std::pair<Eigen::MatrixX2d, double> principal_axes(const Eigen::MatrixXd& centered) {
  const Eigen::Index d = centered.cols();
  if (centered.rows() < 2 || d < 2) return {coordinate_axes(d, 0, d > 1 ? 1 : 0), 1.0};
  const Eigen::BDCSVD<Eigen::MatrixXd> svd(centered, Eigen::ComputeThinV);
  const Eigen::VectorXd s = svd.singularValues();
  Eigen::MatrixX2d axes = svd.matrixV().leftCols(2);
  for (int c = 0; c < 2; ++c) {
    Eigen::Index largest = 0;
    axes.col(c).cwiseAbs().maxCoeff(&largest);
    if (axes(largest, c) < 0) axes.col(c) *= -1.0;
  }
  const double total = s.squaredNorm();
  const double shown = s.size() >= 2 ? s(0) * s(0) + s(1) * s(1) : total;
  return {axes, total > 0 ? shown / total : 1.0};
}

}  // namespace

Result<Trajectory> trajectory(const Matrix& embedding, const Matrix& encoding, TrajectoryPlane plane, int dim_x,
                              int dim_y) {
  const Eigen::Index d = encoding.cols();
  if (embedding.rows() != 1 || embedding.cols() != d)
    return Error{"trajectory: the embedding has width " + std::to_string(embedding.cols()) +
                 ", the encoding " + std::to_string(d)};
  if (encoding.rows() < 1) return Error{"trajectory: no positions"};
  if (plane == TrajectoryPlane::Dims && (dim_x < 0 || dim_y < 0 || dim_x >= d || dim_y >= d))
    return Error{"trajectory: dimensions " + std::to_string(dim_x) + " and " + std::to_string(dim_y) +
                 " must lie in 0 … " + std::to_string(d - 1)};
  // Double precision: the steps of a sinusoid differ from each other by float rounding only.
  const Eigen::MatrixXd x = encoding.cast<double>().rowwise() + embedding.cast<double>().row(0);
  Trajectory t;
  for (Eigen::Index p = 1; p < x.rows(); ++p) t.steps.push_back((x.row(p) - x.row(p - 1)).norm());
  const Eigen::MatrixXd centered = x.rowwise() - x.colwise().mean();
  if (plane == TrajectoryPlane::Pca) {
    std::tie(t.axes, t.explained) = principal_axes(centered);
  } else {
    t.axes = coordinate_axes(d, dim_x, dim_y);
    const double total = centered.squaredNorm();
    const double shown = centered.col(dim_x).squaredNorm() + (dim_y != dim_x ? centered.col(dim_y).squaredNorm() : 0.0);
    t.explained = total > 0 ? shown / total : 1.0;
  }
  t.points = x * t.axes;  // not centred: the plane keeps the embedding's own offset
  return t;
}

}  // namespace poslab

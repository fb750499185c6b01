#pragma once
// Row-major float matrices: row t is token t, which is also the layout the GPU buffers use.
#include <Eigen/Dense>

namespace poslab {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXf;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

}  // namespace poslab

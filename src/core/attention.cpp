#include "core/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace poslab {

AttentionOutput attention_cpu(const AttentionInput& input) {
  const int T = input.tokens();
  const int dh = input.head_dim();
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(dh));
  const float neg_inf = -std::numeric_limits<float>::infinity();
  AttentionOutput out;
  out.context = Matrix::Zero(T, input.Q.cols());
  for (int h = 0; h < input.heads; ++h) {
    const auto Qh = input.Q.middleCols(h * dh, dh);  // T × d_h
    const auto Kh = input.K.middleCols(h * dh, dh);  // T × d_h
    const auto Vh = input.V.middleCols(h * dh, dh);  // T × d_h
    Matrix S = (Qh * Kh.transpose()) * inv_sqrt;      // T × T
    Matrix A(T, T);
    for (int i = 0; i < T; ++i) {
      float row_max = neg_inf;
      for (int j = 0; j < T; ++j) {
        if (input.masked(i, j)) S(i, j) = neg_inf;
        row_max = std::max(row_max, S(i, j));
      }
      if (row_max == neg_inf) {  // every key masked: no weights at all rather than NaN
        A.row(i).setZero();
        continue;
      }
      double sum = 0.0;
      for (int j = 0; j < T; ++j) {
        const float e = S(i, j) == neg_inf ? 0.0f : std::exp(S(i, j) - row_max);
        A(i, j) = e;
        sum += e;
      }
      A.row(i) /= static_cast<float>(sum);
    }
    out.context.middleCols(h * dh, dh) = A * Vh;
    out.scores.push_back(std::move(S));
    out.weights.push_back(std::move(A));
  }
  return out;
}

double max_abs_difference(const AttentionOutput& a, const AttentionOutput& b) {
  double worst = 0.0;
  for (std::size_t h = 0; h < a.weights.size() && h < b.weights.size(); ++h)
    worst = std::max(worst, static_cast<double>((a.weights[h] - b.weights[h]).cwiseAbs().maxCoeff()));
  if (a.context.size() > 0 && a.context.rows() == b.context.rows() && a.context.cols() == b.context.cols())
    worst = std::max(worst, static_cast<double>((a.context - b.context).cwiseAbs().maxCoeff()));
  return worst;
}

}  // namespace poslab

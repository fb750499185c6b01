#include "core/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace poslab {

AttentionInput project(const AttentionProblem& p) {
  AttentionInput in;
  in.Q = p.Xq * p.Wq;   // T_q × d
  in.K = p.Xkv * p.Wk;  // T_k × d
  in.V = p.Xkv * p.Wv;  // T_k × d
  in.heads = p.heads;
  in.causal = p.causal;
  in.key_valid = p.key_valid;
  in.relative_bias = p.relative_bias;
  if (p.rope.enabled) {
    const int dh = p.head_dim();
    const int rotary = 2 * static_cast<int>(p.rope.thetas.size());
    const auto scale = static_cast<float>(p.rope.scale);
    for (int h = 0; h < p.heads; ++h) {  // per head, on q and k only, never on v
      auto q = in.Q.middleCols(h * dh, rotary);
      auto k = in.K.middleCols(h * dh, rotary);
      apply_rope(q, p.rope.query_positions, p.rope.thetas, p.rope.style);
      apply_rope(k, p.rope.key_positions, p.rope.thetas, p.rope.style);
      if (scale != 1.0f) {
        q *= scale;
        k *= scale;
      }
    }
  }
  return in;
}

AttentionOutput attention_cpu(const AttentionInput& input) {
  const int Tq = input.queries();
  const int Tk = input.keys();
  const int dh = input.head_dim();
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(dh));
  const float neg_inf = -std::numeric_limits<float>::infinity();
  AttentionOutput out;
  out.context = Matrix::Zero(Tq, input.Q.cols());
  for (int h = 0; h < input.heads; ++h) {
    const auto Qh = input.Q.middleCols(h * dh, dh);  // T_q × d_h
    const auto Kh = input.K.middleCols(h * dh, dh);  // T_k × d_h
    const auto Vh = input.V.middleCols(h * dh, dh);  // T_k × d_h
    Matrix S = (Qh * Kh.transpose()) * inv_sqrt;      // T_q × T_k
    Matrix A(Tq, Tk);
    for (int i = 0; i < Tq; ++i) {
      float row_max = neg_inf;
      for (int j = 0; j < Tk; ++j) {
        S(i, j) = input.masked(i, j) ? neg_inf : S(i, j) + input.bias(h, i, j);
        row_max = std::max(row_max, S(i, j));
      }
      if (row_max == neg_inf) {  // every key masked: no weights at all rather than NaN
        A.row(i).setZero();
        continue;
      }
      double sum = 0.0;
      for (int j = 0; j < Tk; ++j) {
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

AttentionOutput solve_cpu(const AttentionProblem& problem) {
  AttentionOutput out = attention_cpu(project(problem));
  out.output = out.context * problem.Wo;
  return out;
}

double max_abs_difference(const AttentionOutput& a, const AttentionOutput& b) {
  double worst = 0.0;
  auto compare = [&worst](const Matrix& x, const Matrix& y) {
    if (x.size() > 0 && x.rows() == y.rows() && x.cols() == y.cols())
      worst = std::max(worst, static_cast<double>((x - y).cwiseAbs().maxCoeff()));
  };
  for (std::size_t h = 0; h < a.weights.size() && h < b.weights.size(); ++h) compare(a.weights[h], b.weights[h]);
  compare(a.context, b.context);
  compare(a.output, b.output);
  return worst;
}

}  // namespace poslab

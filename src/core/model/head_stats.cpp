#include "core/model/head_stats.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/model/forward.hpp"

namespace poslab {

HeadSummary summarize(const Matrix& A, const std::vector<int>& ids) {
  HeadSummary s;
  const Eigen::Index T = A.rows();
  // Where each token occurred so far; a repeated copy of a sequence makes j the start of the same
  // context, so the match length picks it even when the token is common.
  constexpr std::size_t kCandidates = 64, kLongestMatch = 64;
  std::unordered_map<int, std::vector<Eigen::Index>> seen;
  const auto n = std::min<Eigen::Index>(T, static_cast<Eigen::Index>(ids.size()));
  auto id = [&](Eigen::Index k) { return ids[static_cast<std::size_t>(k)]; };
  int repeats = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    std::vector<Eigen::Index>& earlier = seen[id(i)];
    Eigen::Index best = -1;
    std::size_t best_match = 0;
    for (std::size_t c = 0; c < std::min(earlier.size(), kCandidates); ++c) {
      const Eigen::Index j = earlier[earlier.size() - 1 - c];  // latest first
      std::size_t match = 1;
      while (match < kLongestMatch && j >= static_cast<Eigen::Index>(match) &&
             id(j - static_cast<Eigen::Index>(match)) == id(i - static_cast<Eigen::Index>(match)))
        ++match;
      if (match > best_match) best = j, best_match = match;
    }
    if (best >= 0) {
      s.induction += A(i, best + 1);
      ++repeats;
    }
    earlier.push_back(i);
  }
  if (repeats > 0) s.induction /= repeats;
  for (Eigen::Index i = 0; i < T; ++i) {
    s.sink += A(i, 0);
    for (Eigen::Index j = 0; j <= i && j < A.cols(); ++j) s.mean_distance += A(i, j) * static_cast<double>(i - j);
    if (i >= 1) s.previous_token += A(i, i - 1);
  }
  s.sink /= static_cast<double>(T);
  s.mean_distance /= static_cast<double>(T);
  s.previous_token = T > 1 ? s.previous_token / static_cast<double>(T - 1) : 0.0;
  return s;
}

Matrix frequency_usage(const Matrix& Q, const Matrix& K, const TransformerConfig& c, const TransformerConfig::LayerShape& shape) {
  const int pairs = shape.rotary_dim / 2, group = c.heads / shape.kv_heads;
  const bool interleaved = c.rope_style == RopeStyle::Interleaved;
  Matrix U = Matrix::Zero(c.heads, pairs);
  for (int h = 0; h < c.heads; ++h) {
    const int qo = h * shape.head_dim, ko = (h / group) * shape.head_dim;
    for (int i = 0; i < pairs; ++i) {
      double sum = 0.0;
      for (Eigen::Index t = 0; t < Q.rows(); ++t) {
        const int a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + pairs;
        const double qn = std::hypot(Q(t, qo + a), Q(t, qo + b));
        const double kn = std::hypot(K(t, ko + a), K(t, ko + b));
        sum += qn * kn;
      }
      U(h, i) = static_cast<float>(sum / static_cast<double>(Q.rows()));
    }
  }
  return U;
}

}  // namespace poslab

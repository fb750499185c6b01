#include "core/encodings/bias.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "base/random.hpp"

namespace poslab {

namespace {

// 2^(−8(h+1)/n) for h = 0 … n−1, n a power of two.
std::vector<double> power_of_two_slopes(int n) {
  std::vector<double> slopes(static_cast<std::size_t>(n));
  for (int h = 0; h < n; ++h)
    slopes[static_cast<std::size_t>(h)] = std::exp2(-8.0 * (h + 1) / static_cast<double>(n));
  return slopes;
}

int largest_power_of_two_at_most(int n) {
  int c = 1;
  while (c <= n / 2) c *= 2;
  return c;
}

// The logarithmic part of T5's buckets, n ≥ max_exact. Computed in float32 like Mesh TF and
// HF (log of float(n)/max_exact, divided by log(max_distance/max_exact) rounded to float) so
// that values landing exactly on a bucket edge round the way trained models saw them.
// Degenerate settings (no exact buckets, max_distance ≤ max_exact) saturate at the last bucket.
int t5_log_bucket(long long n, int max_exact, int buckets, int max_distance) {
  const int last = std::max(buckets - 1, 0);
  if (max_exact <= 0 || max_distance <= max_exact) return last;
  const float ratio = static_cast<float>(n) / static_cast<float>(max_exact);
  const auto span = static_cast<float>(std::log(static_cast<double>(max_distance) / max_exact));
  const float scaled = std::log(ratio) / span * static_cast<float>(buckets - max_exact);
  // Capping before the conversion equals HF's min after it and keeps the cast in range.
  return max_exact + static_cast<int>(std::min(scaled, static_cast<float>(last - max_exact)));
}

// clip(j − i, k) + k: the row of a Shaw table for query i and key j.
Eigen::Index shaw_row(Eigen::Index i, Eigen::Index j, int clip) {
  return std::clamp<Eigen::Index>(j - i, -clip, clip) + clip;
}

}  // namespace

std::vector<double> alibi_slopes(int heads) {
  if (heads <= 0) return {};
  const int c = largest_power_of_two_at_most(heads);
  std::vector<double> slopes = power_of_two_slopes(c);
  if (c == heads) return slopes;
  // Every other slope of 2c interleaves between the ones already taken.
  const std::vector<double> finer = alibi_slopes(2 * c);
  for (std::size_t k = 0; static_cast<int>(slopes.size()) < heads; k += 2)
    slopes.push_back(finer[k]);
  return slopes;
}

Matrix alibi_bias(int T, double slope, AlibiForm form) {
  Matrix b(T, T);
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < T; ++j) {
      const int distance = form == AlibiForm::Causal ? std::max(i - j, 0) : std::abs(i - j);
      b(i, j) = static_cast<float>(-slope * distance);
    }
  }
  return b;
}

int t5_bucket(int relative_position, bool bidirectional, int num_buckets, int max_distance) {
  int buckets = num_buckets, offset = 0;
  long long n = relative_position;  // 64 bits: |INT_MIN| does not fit an int
  if (bidirectional) {
    buckets /= 2;
    offset = relative_position > 0 ? buckets : 0;
    n = std::llabs(n);
  } else {
    n = std::max(-n, 0LL);
  }
  const int max_exact = buckets / 2;
  if (n < max_exact) return offset + static_cast<int>(n);
  return offset + t5_log_bucket(n, max_exact, buckets, max_distance);
}

Matrix t5_bias_table(int heads, int num_buckets, double sigma, std::uint64_t seed) {
  return gaussian_matrix(heads, num_buckets, sigma, seed);
}

Matrix t5_bias(int T, const Matrix& table, int head, bool bidirectional, int num_buckets,
               int max_distance) {
  Matrix b(T, T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      b(i, j) = table(head, t5_bucket(j - i, bidirectional, num_buckets, max_distance));
  return b;
}

ShawTables shaw_tables(int clip, int head_dim, double sigma, std::uint64_t seed) {
  const int rows = 2 * clip + 1;
  return ShawTables{gaussian_matrix(rows, head_dim, sigma, mix_seed(seed, 0)),
                    gaussian_matrix(rows, head_dim, sigma, mix_seed(seed, 1)), clip};
}

Matrix shaw_score_term(const Matrix& Qh, const ShawTables& t) {
  // q_i · a_r for every query and every clipped offset, then gathered per (i, j).
  const Eigen::MatrixXd qa = Qh.cast<double>() * t.keys.cast<double>().transpose();
  Matrix s(Qh.rows(), Qh.rows());
  for (Eigen::Index i = 0; i < s.rows(); ++i)
    for (Eigen::Index j = 0; j < s.cols(); ++j)
      s(i, j) = static_cast<float>(qa(i, shaw_row(i, j, t.clip)));
  return s;
}

Matrix shaw_value_term(const Matrix& weights, const ShawTables& t) {
  // Sum the weights that share a clipped offset, then mix the value vectors once per offset.
  Eigen::MatrixXd per_offset = Eigen::MatrixXd::Zero(weights.rows(), t.values.rows());
  for (Eigen::Index i = 0; i < weights.rows(); ++i)
    for (Eigen::Index j = 0; j < weights.cols(); ++j)
      per_offset(i, shaw_row(i, j, t.clip)) += weights(i, j);
  return (per_offset * t.values.cast<double>()).cast<float>();
}

}  // namespace poslab

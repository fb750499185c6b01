#include "core/papers/paper_math.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "base/matrix.hpp"
#include "base/random.hpp"
#include "core/encodings/encodings.hpp"
#include "core/encodings/rope_scaling.hpp"

namespace poslab {

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;
constexpr long kAnchorEvery = 1024;  // exact cos/sin this often, so the recurrence cannot drift

// Whether B(m) ≥ 0 for every m ≤ L.
bool stays_nonnegative(int d, double base, long L) { return first_negative_cos_sum(d, base, L) < 0; }

constexpr long kWitnessWindow = 32;

// Whether B(m) < 0 for some m within kWitnessWindow of `around` (and in [0, L]), by exact cosines.
bool negative_near(int d, double base, long around, long L) {
  const std::vector<double> thetas = rope_thetas(d, base);
  for (long m = std::max(around - kWitnessWindow, 0L); m <= std::min(around + kWitnessWindow, L); ++m) {
    double sum = 0.0;
    for (double theta : thetas) sum += std::cos(static_cast<double>(m) * theta);
    if (sum < 0.0) return true;
  }
  return false;
}

// Bisection on log(base) between a failing and a passing base (a relative width of 1e-6).
double refine(int d, long L, double failing, double passing) {
  for (int k = 0; k < 40 && passing / failing > 1.0 + 1e-6; ++k) {
    const double mid = std::sqrt(failing * passing);
    (stays_nonnegative(d, mid, L) ? passing : failing) = mid;
  }
  return passing;
}

}  // namespace

std::vector<double> roformer_relative_bound(int d, double base, int max_m) {
  const std::vector<double> thetas = rope_thetas(d, base);
  const double half = static_cast<double>(thetas.size());
  std::vector<double> bound(static_cast<std::size_t>(std::max(max_m + 1, 0)));
  for (int m = 0; m <= max_m; ++m) {
    std::complex<double> S = 0.0;  // S_j, grown one term at a time
    double total = 0.0;
    for (double theta : thetas) {
      S += std::polar(1.0, m * theta);
      total += std::abs(S);
    }
    bound[static_cast<std::size_t>(m)] = total / half;
  }
  return bound;
}

double mean_rotated_score(int d, double base, int m, int samples, std::uint64_t seed, bool same) {
  const std::vector<double> thetas = rope_thetas(d, base);
  const Matrix Q = gaussian_matrix(samples, d, 1.0, mix_seed(seed, 1));  // samples × d
  Matrix K = same ? Q : gaussian_matrix(samples, d, 1.0, mix_seed(seed, 2));
  const std::vector<int> positions(static_cast<std::size_t>(samples), m);
  apply_rope(K, positions, thetas, RopeStyle::Interleaved);  // R(m)k: the key m positions away
  return (Q.cast<double>().array() * K.cast<double>().array()).rowwise().sum().mean();
}

double same_vector_expected_score(int d, double base, int m) {
  double sum = 0.0;
  for (double theta : rope_thetas(d, base)) sum += std::cos(m * theta);
  return 2.0 * sum;
}

long first_negative_cos_sum(int d, double base, long L) {
  const std::vector<double> t = rope_thetas(d, base);
  const Eigen::ArrayXd theta = Eigen::Map<const Eigen::ArrayXd>(t.data(), static_cast<Eigen::Index>(t.size()));
  const Eigen::ArrayXd step_cos = theta.cos(), step_sin = theta.sin();
  Eigen::ArrayXd c(theta.size()), s(theta.size()), next(theta.size());
  for (long m = 0; m <= L; ++m) {
    if (m % kAnchorEvery == 0) {
      c = (static_cast<double>(m) * theta).cos();
      s = (static_cast<double>(m) * theta).sin();
    }
    if (c.sum() < 0.0) return m;
    next = c * step_cos - s * step_sin;  // e^{i(m+1)θ} = e^{imθ}·e^{iθ}
    s = s * step_cos + c * step_sin;
    c = next;
  }
  return -1;
}

double smallest_nonnegative_base(int d, long L, double start, double ratio, double max_base) {
  double previous = start;
  long witness = -1;  // where the last failing base went negative
  for (double base = start; base <= max_base; base *= ratio) {
    // A base just above a failing one mostly fails near the same m: look there first (exactly),
    // and scan the whole range only when that window stays ≥ 0.
    if (witness >= 0 && negative_near(d, base, witness, L)) {
      previous = base;
      continue;
    }
    witness = first_negative_cos_sum(d, base, L);
    if (witness < 0) return base == start ? base : refine(d, L, previous, base);
    previous = base;
  }
  return 0.0;
}

std::vector<double> smallest_nonnegative_bases(int d, const std::vector<long>& lengths, double ratio) {
  std::vector<double> bases;
  double start = 2.0;
  for (long L : lengths) {
    const double found = smallest_nonnegative_base(d, L, start, ratio, 1e12);
    bases.push_back(found);
    if (found > 0.0) start = found;
  }
  return bases;
}

int critical_dimension(int d, double base, double train_length) {
  return 2 * static_cast<int>(std::ceil(d / 2.0 * std::log(train_length / kTwoPi) / std::log(base)));
}

double extrapolation_bound(int d, double base, int d_extra) {
  return kTwoPi * std::pow(base, static_cast<double>(d_extra) / d);
}

int dimensions_with_full_period(int d, double base, double train_length) {
  int count = 0;
  for (double theta : rope_thetas(d, base))
    if (kTwoPi / theta <= train_length) count += 2;
  return count;
}

std::vector<double> yarn_share_poslab(int d, double base, int L, double s) {
  RopeScaling scaling;
  scaling.type = RopeScalingType::Yarn;
  scaling.factor = s;
  scaling.original_max_position = L;
  const std::vector<double> plain = rope_thetas(d, base);
  const std::vector<double> scaled = rope_frequencies(d, base, scaling, L).thetas;
  std::vector<double> share(plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) share[i] = (1.0 - scaled[i] / plain[i]) / (1.0 - 1.0 / s);
  return share;
}

std::vector<double> yarn_share_paper(int d, double base, int L, double beta_fast, double beta_slow) {
  std::vector<double> share;
  for (double theta : rope_thetas(d, base)) {
    const double r = L * theta / kTwoPi;  // rotations of pair i over the original length
    const double gamma = std::clamp((r - beta_slow) / (beta_fast - beta_slow), 0.0, 1.0);
    share.push_back(1.0 - gamma);
  }
  return share;
}

std::vector<double> yarn_share_code(int d, double base, int L, double beta_fast, double beta_slow) {
  // _yarn_find_correction_dim and _yarn_linear_ramp_mask of the YaRN authors' code.
  const auto index = [&](double rotations) { return d * std::log(L / (rotations * kTwoPi)) / (2.0 * std::log(base)); };
  const double low = std::max(std::floor(index(beta_fast)), 0.0);
  double high = std::min(std::ceil(index(beta_slow)), static_cast<double>(d - 1));
  if (high == low) high += 0.001;
  std::vector<double> share(static_cast<std::size_t>(d / 2));
  for (std::size_t i = 0; i < share.size(); ++i)
    share[i] = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
  return share;
}

double yarn_temperature_poslab(double s) {
  RopeScaling scaling;
  scaling.type = RopeScalingType::Yarn;
  scaling.factor = s;
  return rope_frequencies(64, 10000.0, scaling, scaling.original_max_position).attention_scale;
}

}  // namespace poslab

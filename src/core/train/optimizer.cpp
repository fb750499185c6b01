#include "core/train/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace poslab {

double learning_rate(const Schedule& s, int step) {
  if (step < s.warmup) return s.peak * (step + 1) / s.warmup;
  const double span = std::max(1, s.steps - 1 - s.warmup);
  const double progress = std::clamp((step - s.warmup) / span, 0.0, 1.0);
  const double low = s.min_ratio * s.peak;
  return low + 0.5 * (s.peak - low) * (1.0 + std::cos(std::numbers::pi * progress));
}

template <class S>
double clip_gradient(std::span<S> gradient, double max_norm) {
  double sum = 0.0;
  for (S g : gradient) sum += static_cast<double>(g) * static_cast<double>(g);
  const double norm = std::sqrt(sum);
  const double coefficient = max_norm / (norm + 1e-6);
  if (coefficient < 1.0)
    for (S& g : gradient) g = static_cast<S>(g * coefficient);
  return norm;
}

template <class S>
AdamW<S>::AdamW(const std::vector<TensorSpec>& specs, const AdamWSettings& settings) : settings_(settings) {
  for (const TensorSpec& s : specs) decay_.insert(decay_.end(), static_cast<std::size_t>(s.rows * s.cols), s.decay ? 1 : 0);
  m_.assign(decay_.size(), S(0));
  v_.assign(decay_.size(), S(0));
}

template <class S>
void AdamW<S>::update(std::span<S> w, std::span<const S> g, double lr) {
  ++t_;
  const double b1 = settings_.beta1, b2 = settings_.beta2;
  const auto step_size = static_cast<S>(lr / (1.0 - std::pow(b1, t_)));
  const auto v_correction = static_cast<S>(1.0 / std::sqrt(1.0 - std::pow(b2, t_)));
  const auto shrink = static_cast<S>(1.0 - lr * settings_.weight_decay);
  const auto beta1 = static_cast<S>(b1), beta2 = static_cast<S>(b2), eps = static_cast<S>(settings_.eps);
  const auto size = static_cast<std::ptrdiff_t>(w.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t j = 0; j < size; ++j) {
    const auto i = static_cast<std::size_t>(j);
    m_[i] = beta1 * m_[i] + (S(1) - beta1) * g[i];
    v_[i] = beta2 * v_[i] + (S(1) - beta2) * g[i] * g[i];
    if (decay_[i]) w[i] *= shrink;
    w[i] -= step_size * m_[i] / (std::sqrt(v_[i]) * v_correction + eps);
  }
}

template double clip_gradient<float>(std::span<float>, double);
template double clip_gradient<double>(std::span<double>, double);
template class AdamW<float>;
template class AdamW<double>;

}  // namespace poslab

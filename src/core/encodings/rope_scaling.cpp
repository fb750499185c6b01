#include "core/encodings/rope_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <sstream>
#include <string>

#include "core/encodings/encodings.hpp"
#include "base/number_text.hpp"

namespace poslab {

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Exponent d/(d − 2) of the NTK-aware base change; it keeps the lowest frequency θ_{d/2−1}
// scaled by exactly 1/s (NTK) while θ₀ = 1 stays fixed.
double ntk_exponent(int d) { return static_cast<double>(d) / static_cast<double>(d - 2); }

// θᵢ for a changed base. With d ≤ 2 the only pair has θ₀ = base⁰ = 1 for every base, so the
// base change is skipped (it would divide by d − 2 = 0).
std::vector<double> thetas_with_base_scale(int d, double base, double base_scale) {
  if (d <= 2) return rope_thetas(d, base);
  return rope_thetas(d, base * std::pow(base_scale, ntk_exponent(d)));
}

std::vector<double> linear_thetas(int d, double base, double s) {
  auto thetas = rope_thetas(d, base);
  for (double& t : thetas) t /= s;
  return thetas;
}

// Dynamic NTK: base · (s·T/L − (s − 1))^(d/(d−2)), only once T exceeds L.
std::vector<double> dynamic_thetas(int d, double base, const RopeScaling& c, int T) {
  if (T <= c.original_max_position) return rope_thetas(d, base);
  const double ratio = c.factor * static_cast<double>(T) / c.original_max_position;
  return thetas_with_base_scale(d, base, ratio - (c.factor - 1.0));
}

// YaRN's pair index at which a frequency completes `rotations` turns over L:
// d·ln(L / (2π·rotations)) / (2·ln base) (HF: find_correction_dim).
double yarn_correction_index(double rotations, int d, double base, int L) {
  return static_cast<double>(d) * std::log(L / (rotations * kTwoPi)) / (2.0 * std::log(base));
}

// YaRN's temperature 0.1·ln(s) + 1 (HF: get_mscale), 1 when nothing is stretched.
double yarn_attention_scale(double s) { return s <= 1.0 ? 1.0 : 0.1 * std::log(s) + 1.0; }

// YaRN as Hugging Face's _compute_yarn_parameters (and the YaRN authors' code) does it:
// low = max(floor(index(β_fast)), 0) and high = min(ceil(index(β_slow)), d − 1). We keep HF's
// clamp d − 1 (not d/2 − 1, the last pair index) so that the numbers match real checkpoints
// and the ramp keeps the slope its rotation counts give; the two differ only when
// index(β_slow) > d/2 − 1, i.e. when even the slowest pair turns more than β_slow times over L.
std::vector<double> yarn_thetas(int d, double base, const RopeScaling& c) {
  auto thetas = rope_thetas(d, base);
  // truncate (HF's default) rounds the range outward to whole pairs; GPT-OSS keeps it exact.
  const double fast = yarn_correction_index(c.beta_fast, d, base, c.original_max_position);
  const double slow = yarn_correction_index(c.beta_slow, d, base, c.original_max_position);
  const double low = std::max(c.yarn_truncate ? std::floor(fast) : fast, 0.0);
  double high = std::min(c.yarn_truncate ? std::ceil(slow) : slow, static_cast<double>(d - 1));
  if (high == low) high += 0.001;  // HF's guard against a zero-width ramp
  for (std::size_t i = 0; i < thetas.size(); ++i) {
    const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
    const double extrapolation = 1.0 - ramp;  // 1: keep θ (fast pairs); 0: θ/s (slow pairs)
    thetas[i] = thetas[i] / c.factor * (1.0 - extrapolation) + thetas[i] * extrapolation;
  }
  return thetas;
}

// Llama 3: short wavelengths kept, long ones divided by s, a linear blend in L/λ between.
double llama3_theta(double theta, const RopeScaling& c) {
  const double L = c.original_max_position;
  const double wavelength = kTwoPi / theta;
  if (wavelength < L / c.high_freq_factor) return theta;
  if (wavelength > L / c.low_freq_factor) return theta / c.factor;
  const double t = (L / wavelength - c.low_freq_factor) / (c.high_freq_factor - c.low_freq_factor);
  return (1.0 - t) * theta / c.factor + t * theta;
}

std::vector<double> llama3_thetas(int d, double base, const RopeScaling& c) {
  auto thetas = rope_thetas(d, base);
  for (double& t : thetas) t = llama3_theta(t, c);
  return thetas;
}

// LongRoPE: θᵢ = base^(−2i/d) / fᵢ with the short or the long factors f.
std::vector<double> longrope_thetas(int d, double base, const RopeScaling& c, int T) {
  auto thetas = rope_thetas(d, base);
  const std::vector<double>& f = longrope_uses_long(c, T) ? c.long_factor : c.short_factor;
  for (std::size_t i = 0; i < thetas.size() && i < f.size(); ++i) thetas[i] /= f[i];
  return thetas;
}

Error invalid(const std::string& what) { return Error{"RoPE scaling: " + what}; }

}  // namespace

RopeFrequencies rope_frequencies(int rotary_dim, double base, const RopeScaling& scaling,
                                 int sequence_length) {
  const int d = std::max(rotary_dim, 0);
  RopeFrequencies f;
  switch (scaling.type) {
    case RopeScalingType::None: f.thetas = rope_thetas(d, base); break;
    case RopeScalingType::Linear: f.thetas = linear_thetas(d, base, scaling.factor); break;
    case RopeScalingType::Ntk: f.thetas = thetas_with_base_scale(d, base, scaling.factor); break;
    case RopeScalingType::Dynamic:
      f.thetas = dynamic_thetas(d, base, scaling, sequence_length);
      break;
    case RopeScalingType::Yarn:
      f.thetas = yarn_thetas(d, base, scaling);
      f.attention_scale = scaling.attention_given ? scaling.attention_factor : yarn_attention_scale(scaling.factor);
      break;
    case RopeScalingType::Llama3: f.thetas = llama3_thetas(d, base, scaling); break;
    case RopeScalingType::LongRope:
      f.thetas = longrope_thetas(d, base, scaling, sequence_length);
      f.attention_scale = scaling.attention_factor;
      break;
  }
  return f;
}

double longrope_attention_factor(double s, int original_max_position) {
  if (s <= 1.0 || original_max_position <= 1) return 1.0;
  return std::sqrt(1.0 + std::log(s) / std::log(static_cast<double>(original_max_position)));
}

bool longrope_uses_long(const RopeScaling& c, int sequence_length) {
  if (c.longrope_set != LongRopeSet::ByLength) return c.longrope_set == LongRopeSet::Long;
  return sequence_length > c.original_max_position;
}

std::string_view to_string(RopeScalingType type) {
  switch (type) {
    case RopeScalingType::None: return "none";
    case RopeScalingType::Linear: return "linear";
    case RopeScalingType::Ntk: return "ntk";
    case RopeScalingType::Dynamic: return "dynamic";
    case RopeScalingType::Yarn: return "yarn";
    case RopeScalingType::Llama3: return "llama3";
    case RopeScalingType::LongRope: return "longrope";
  }
  return "unknown";
}

Status validate(const RopeScaling& c) {
  if (c.type == RopeScalingType::None) return Ok{};
  if (!(c.factor >= 1.0) || !std::isfinite(c.factor))
    return invalid("factor must be a finite number ≥ 1 (it is the ratio new length / original "
                   "length), got " + number_text(c.factor));
  if (c.original_max_position < 1)
    return invalid("original_max_position_embeddings must be at least 1, got " +
                   std::to_string(c.original_max_position));
  if (c.type == RopeScalingType::Llama3 &&
      !(c.high_freq_factor > c.low_freq_factor && c.low_freq_factor > 0.0))
    return invalid("Llama 3 needs high_freq_factor > low_freq_factor > 0, got high " +
                   number_text(c.high_freq_factor) + " and low " +
                   number_text(c.low_freq_factor));
  if (c.type == RopeScalingType::LongRope) {
    if (c.short_factor.empty() || c.short_factor.size() != c.long_factor.size())
      return invalid("LongRoPE needs short_factor and long_factor lists of the same length, one per rotary pair");
    for (const auto* list : {&c.short_factor, &c.long_factor})
      for (double f : *list)
        if (!(f > 0.0) || !std::isfinite(f)) return invalid("LongRoPE's factors must be finite numbers > 0, got " + number_text(f));
    if (!(c.attention_factor > 0.0) || !std::isfinite(c.attention_factor))
      return invalid("LongRoPE's attention_factor must be a finite number > 0, got " + number_text(c.attention_factor));
  }
  if (c.type == RopeScalingType::Yarn && c.attention_given && !(c.attention_factor > 0.0 && std::isfinite(c.attention_factor)))
    return invalid("YaRN's attention_factor must be a finite number > 0, got " + number_text(c.attention_factor));
  if (c.type == RopeScalingType::Yarn && !(c.beta_fast > c.beta_slow && c.beta_slow > 0.0))
    return invalid("YaRN needs beta_fast > beta_slow > 0, got beta_fast " +
                   number_text(c.beta_fast) + " and beta_slow " + number_text(c.beta_slow));
  return Ok{};
}

Result<DropPairs> parse_drop_pairs(std::string_view text) {
  if (text == "none") return DropPairs{};
  const auto colon = text.find(':');
  const std::string_view side = text.substr(0, colon == std::string_view::npos ? 0 : colon);
  if (colon == std::string_view::npos || (side != "low" && side != "high"))
    return Error{"--drop-pairs expects low:F or high:F (F a fraction from 0 to 1) or none, not \"" + std::string(text) + "\""};
  const std::string number(text.substr(colon + 1));
  char* end = nullptr;
  const double f = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !(f >= 0.0 && f <= 1.0))
    return Error{"--drop-pairs: the fraction must be a number from 0 to 1, not \"" + number + "\""};
  return DropPairs{side == "high", f};
}

std::string to_string(const DropPairs& d) {
  if (d.fraction <= 0.0) return "none";
  std::string f = std::to_string(d.fraction);
  while (f.size() > 1 && f.back() == '0') f.pop_back();
  if (f.back() == '.') f.pop_back();
  return std::string(d.highest ? "high:" : "low:") + f;
}

void drop_pairs(std::vector<double>& thetas, const DropPairs& d) {
  const auto n = thetas.size();
  const auto k = std::min(n, static_cast<std::size_t>(std::lround(d.fraction * static_cast<double>(n))));
  for (std::size_t i = 0; i < k; ++i) thetas[d.highest ? i : n - 1 - i] = 0.0;
}

}  // namespace poslab

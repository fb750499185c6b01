#include "plot/axis.hpp"

#include <cmath>
#include <cstdio>

namespace poslab::plot {

std::vector<double> nice_ticks(double lo, double hi, int max_count) {
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || max_count < 2) return ticks;
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo < 1e-12) return {lo};
  const double raw = (hi - lo) / (max_count - 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double v = first; v <= hi + step * 1e-9; v += step) ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return ticks;
}

std::string tick_label(double value, double step) {
  char buf[32];
  const double a = std::abs(step);
  if (a >= 1e5 || (a > 0 && a < 1e-4)) {
    std::snprintf(buf, sizeof buf, "%.3g", value);
  } else {
    // Enough decimals that the step itself prints exactly (0.25 needs 2, 0.2 needs 1).
    int decimals = 0;
    while (decimals < 6 && std::abs(a * std::pow(10.0, decimals) - std::round(a * std::pow(10.0, decimals))) > 1e-6)
      ++decimals;
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  }
  std::string s = buf;
  if (s == "-0" || s == "-0.0" || s == "-0.00") s = s.substr(1);
  return s;
}

}  // namespace poslab::plot

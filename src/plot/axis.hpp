#pragma once
// Tick positions and labels for a numeric axis.
#include <string>
#include <vector>

namespace poslab::plot {

// Round values (1, 2 or 5 × 10ᵏ steps) covering [lo, hi], at most about `max_count` of them.
std::vector<double> nice_ticks(double lo, double hi, int max_count);

// A tick label with just enough digits for the step between ticks ("0.25", "1e+03", "-2").
std::string tick_label(double value, double step);

}  // namespace poslab::plot

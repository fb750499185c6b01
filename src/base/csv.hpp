#pragma once
// The two pieces every CSV writer shares (core's results, the figures' tables, the training log).
#include <string>
#include <string_view>

namespace poslab {

// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

// Shortest decimal text that reads back as the same float.
std::string format_float(float v);

}  // namespace poslab

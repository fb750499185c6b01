#include "core/model/position_tables.hpp"

#include <cmath>

#include "core/encodings/bias.hpp"

namespace poslab {

RopeFrequencies rotary_angles(int rotary_dim, double base, const RopeScaling& scaling, int length, double fraction) {
  RopeFrequencies f = rope_frequencies(rotary_dim, base, scaling, length);
  const auto rotating = static_cast<std::size_t>(std::lround(fraction * static_cast<double>(f.thetas.size())));
  for (std::size_t i = rotating; i < f.thetas.size(); ++i) f.thetas[i] = 0.0;
  return f;
}

std::vector<double> alibi_by_distance(int heads, int distances) {
  const std::vector<double> slopes = alibi_slopes(heads);
  std::vector<double> table(static_cast<std::size_t>(heads) * static_cast<std::size_t>(distances));
  for (int h = 0; h < heads; ++h)
    for (int d = 0; d < distances; ++d)
      table[static_cast<std::size_t>(h) * static_cast<std::size_t>(distances) + static_cast<std::size_t>(d)] =
          -slopes[static_cast<std::size_t>(h)] * d;
  return table;
}

std::vector<int> t5_buckets_by_offset(int T, bool bidirectional, int buckets, int max_distance) {
  std::vector<int> out(static_cast<std::size_t>(2 * T - 1));
  for (int o = -(T - 1); o <= T - 1; ++o) out[static_cast<std::size_t>(o + T - 1)] = t5_bucket(o, bidirectional, buckets, max_distance);
  return out;
}

}  // namespace poslab

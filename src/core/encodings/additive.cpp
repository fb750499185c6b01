#include "core/encodings/additive.hpp"

#include <algorithm>
#include <string>

#include "base/random.hpp"

namespace poslab {

Matrix integer_encoding(int positions, int d) {
  Matrix pe(positions, d);
  for (int p = 0; p < positions; ++p) pe.row(p).setConstant(static_cast<float>(p));
  return pe;
}

Matrix normalized_encoding(int positions, int d, int length) {
  Matrix pe(positions, d);
  // Divide in double and round once, so p / N is the nearest float to the true ratio.
  for (int p = 0; p < positions; ++p)
    pe.row(p).setConstant(static_cast<float>(static_cast<double>(p) / static_cast<double>(length)));
  return pe;
}

Matrix binary_encoding(int positions, int d, BinaryValues values) {
  const float zero = values == BinaryValues::ZeroOne ? 0.0f : -1.0f;
  Matrix pe(positions, d);
  for (int p = 0; p < positions; ++p) {
    const auto bits = static_cast<std::uint64_t>(std::max(p, 0));
    for (int j = 0; j < d; ++j) {
      // Shifting a 64-bit value by 64 or more is undefined; such high bits are 0 anyway.
      const bool set = j < 63 && ((bits >> j) & 1u) != 0;
      pe(p, j) = set ? 1.0f : zero;
    }
  }
  return pe;
}

Matrix learned_table(int max_positions, int d, double sigma, std::uint64_t seed) {
  return gaussian_matrix(max_positions, d, sigma, seed);
}

Result<Matrix> learned_encoding(const Matrix& table, int positions) {
  if (positions < 0) return Error{"a sequence cannot have a negative length"};
  if (positions > table.rows())
    return Error{"the learned table has " + std::to_string(table.rows()) +
                 " positions; the sequence needs " + std::to_string(positions) +
                 " — a learned encoding is undefined past T_max"};
  return Matrix(table.topRows(positions));
}

}  // namespace poslab

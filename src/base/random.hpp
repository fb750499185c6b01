#pragma once
// A small deterministic generator: the same seed gives the same numbers on every machine and
// compiler (std::normal_distribution is not specified bit for bit, so we do not use it).
#include <cstdint>
#include <string_view>

#include "base/matrix.hpp"

namespace poslab {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64();
  double uniform();  // in (0, 1)
  double normal();   // N(0, 1), Box–Muller in double precision

 private:
  std::uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// Mixes a seed with a stream number so that W_q, W_k, … get independent streams.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream);

// FNV-1a of a string: a stable seed for vectors derived from a token's text.
std::uint64_t hash_text(std::string_view text);

// rows × cols matrix with entries drawn from N(0, sigma²).
Matrix gaussian_matrix(int rows, int cols, double sigma, std::uint64_t seed);

}  // namespace poslab

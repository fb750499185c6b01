#pragma once
// Additive positional encodings (added to the token embeddings before the projections), as
// docs/FORMULAS.md defines them. Each returns a positions × d matrix, row p = PE(p).
#include <cstdint>

#include "base/matrix.hpp"
#include "base/result.hpp"

namespace poslab {

// PE(p)ⱼ = p for every component: the naive code whose magnitude grows without bound.
Matrix integer_encoding(int positions, int d);

// PE(p)ⱼ = p / length with length = the current sequence length N (so the same position gets
// different codes in sequences of different length).
Matrix normalized_encoding(int positions, int d, int length);

enum class BinaryValues { ZeroOne, PlusMinusOne };

// PE(p)ⱼ = bit j of p, least significant bit in dimension 0; PlusMinusOne maps 0 → −1, 1 → +1.
// Dimensions past bit 62 hold the bit value 0 (positions are non-negative ints).
Matrix binary_encoding(int positions, int d, BinaryValues values);

// A seeded max_positions × d table with entries from N(0, sigma²) (base/random.hpp).
Matrix learned_table(int max_positions, int d, double sigma, std::uint64_t seed);

// The first `positions` rows of a learned table, or an error when the sequence is longer than
// the table: a learned encoding is undefined past T_max.
Result<Matrix> learned_encoding(const Matrix& table, int positions);

}  // namespace poslab

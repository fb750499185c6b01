#pragma once
// Attention biases added to the scaled scores, A = softmax(QKᵀ/√d_h + B + M), and Shaw et al.'s
// relative vectors (docs/FORMULAS.md). Row i is the query, column j the key.
#include <cstdint>
#include <vector>

#include "base/matrix.hpp"

namespace poslab {

// ALiBi slopes m_h for `heads` heads (Press et al. 2022, ofirpress get_slopes): for a power of
// two n, m_h = 2^(−8(h+1)/n); otherwise the slopes of the largest power of two c < n, then every
// other slope of 2c until there are n. 8 heads give 2^−1 … 2^−8.
std::vector<double> alibi_slopes(int heads);

enum class AlibiForm { Causal, Symmetric };

// T × T ALiBi bias for one head. Causal: B_ij = −m·(i − j) for j ≤ i and 0 for j > i (those
// future cells are −∞ under the causal mask anyway). Symmetric: −m·|i − j| (bidirectional).
Matrix alibi_bias(int T, double slope, AlibiForm form);

// T5's bucket for relative_position = j − i (key − query), exactly as Mesh TensorFlow and HF
// T5's _relative_position_bucket, including their float32 log. Bidirectional: half the buckets
// per sign, the upper half for j > i; causal: only n = max(i − j, 0), future keys all in bucket 0.
// Within a range of b buckets: exact for n < b/2, logarithmic up to max_distance, then b − 1.
int t5_bucket(int relative_position, bool bidirectional, int num_buckets, int max_distance);

// A seeded heads × num_buckets table of learned biases, entries from N(0, sigma²).
Matrix t5_bias_table(int heads, int num_buckets, double sigma, std::uint64_t seed);

// T × T bias of one head: B_ij = table(head, t5_bucket(j − i, …)). The table needs at least
// num_buckets columns and a row `head`.
Matrix t5_bias(int T, const Matrix& table, int head, bool bidirectional, int num_buckets,
               int max_distance);

// Shaw et al. 2018: learned vectors a_r for clipped relative positions r = clip(j − i, k), one
// table for keys and one for values; row r + clip holds a_r, so each is (2·clip + 1) × d_h.
struct ShawTables {
  Matrix keys, values;
  int clip = 0;
};

// Seeded tables with entries from N(0, sigma²), keys and values from independent streams.
ShawTables shaw_tables(int clip, int head_dim, double sigma, std::uint64_t seed);

// T × T term q_i · a^K_{clip(j−i, k)} for the T × d_h queries of one head. It belongs inside the
// score with q·k: the caller divides the sum (q_i·k_j + this) by √d_h.
Matrix shaw_score_term(const Matrix& Qh, const ShawTables& t);

// T × d_h term Σ_j α_ij a^V_{clip(j−i, k)} added to the head's output A·V; `weights` are the
// attention weights α (rows: queries, columns: keys).
Matrix shaw_value_term(const Matrix& weights, const ShawTables& t);

}  // namespace poslab

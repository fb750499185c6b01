#pragma once
// Attention by distance: each head's mean weight at every key − query offset, and its weight on
// the first token (the attention sink). The curve that compares RoPE, ALiBi and NoPE at long
// range, where a T × T heatmap is too large to read.
#include <ostream>
#include <vector>

#include "core/attention/attention.hpp"

namespace poslab {

struct DistanceProfile {
  int heads = 0;
  // Key − query offsets with at least one unmasked cell, ascending (negative: keys before the query).
  std::vector<int> offsets;
  std::vector<int> cells;  // per offset: the unmasked (query, key) cells averaged
  std::vector<std::vector<double>> mean_weight;  // [head][offset index]
  // Per head: the mean over queries of the weight on key 0 (over the queries that may see it).
  std::vector<double> sink;
  int sink_queries = 0;  // how many queries that mean is over
  // The index of `offset` in offsets, or −1.
  int index_of(int offset) const;
};

// From every head's weights (T_q × T_k each) and the problem's masks; masked cells are left out.
DistanceProfile attention_by_distance(const std::vector<Matrix>& weights, const AttentionProblem& problem);

// header `kind,head,offset,mean_weight,cells`: a row `offset` per (head, offset) with the mean
// weight over its unmasked cells, and a row `sink` per head (offset 0, key 0's mean weight over
// `cells` queries).
void write_distance_csv(std::ostream& out, const DistanceProfile& profile);

}  // namespace poslab

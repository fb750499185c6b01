#include "core/attention/distance.hpp"

#include <algorithm>

#include "base/csv.hpp"

namespace poslab {

int DistanceProfile::index_of(int offset) const {
  const auto it = std::lower_bound(offsets.begin(), offsets.end(), offset);
  return it != offsets.end() && *it == offset ? static_cast<int>(it - offsets.begin()) : -1;
}

DistanceProfile attention_by_distance(const std::vector<Matrix>& weights, const AttentionProblem& p) {
  DistanceProfile d;
  d.heads = static_cast<int>(weights.size());
  const int Tq = p.queries(), Tk = p.keys();
  if (d.heads == 0 || Tq == 0 || Tk == 0) return d;
  // Column o + T_q − 1 of the sums holds offset o = j − i.
  const int span = Tq + Tk - 1;
  std::vector<int> cells(static_cast<std::size_t>(span), 0);
  std::vector<std::vector<double>> sums(static_cast<std::size_t>(d.heads), std::vector<double>(static_cast<std::size_t>(span), 0.0));
  d.sink.assign(static_cast<std::size_t>(d.heads), 0.0);
  for (int i = 0; i < Tq; ++i) {
    // The unmasked keys of row i: all valid keys, up to i when causal.
    const int last = p.causal ? std::min(i, Tk - 1) : Tk - 1;
    for (int j = 0; j <= last; ++j) {
      if (p.key_valid[static_cast<std::size_t>(j)] == 0) continue;
      ++cells[static_cast<std::size_t>(j - i + Tq - 1)];
    }
    if (p.key_valid[0] != 0) ++d.sink_queries;
  }
  for (int h = 0; h < d.heads; ++h) {
    const Matrix& A = weights[static_cast<std::size_t>(h)];  // T_q × T_k
    auto& sum = sums[static_cast<std::size_t>(h)];
    for (int i = 0; i < Tq; ++i) {
      const int last = p.causal ? std::min(i, Tk - 1) : Tk - 1;
      for (int j = 0; j <= last; ++j)
        if (p.key_valid[static_cast<std::size_t>(j)] != 0) sum[static_cast<std::size_t>(j - i + Tq - 1)] += A(i, j);
      if (p.key_valid[0] != 0) d.sink[static_cast<std::size_t>(h)] += A(i, 0);
    }
    if (d.sink_queries > 0) d.sink[static_cast<std::size_t>(h)] /= d.sink_queries;
  }
  d.mean_weight.resize(static_cast<std::size_t>(d.heads));
  for (int c = 0; c < span; ++c) {
    const int n = cells[static_cast<std::size_t>(c)];
    if (n == 0) continue;
    d.offsets.push_back(c - (Tq - 1));
    d.cells.push_back(n);
    for (int h = 0; h < d.heads; ++h)
      d.mean_weight[static_cast<std::size_t>(h)].push_back(sums[static_cast<std::size_t>(h)][static_cast<std::size_t>(c)] / n);
  }
  return d;
}

void write_distance_csv(std::ostream& out, const DistanceProfile& d) {
  out << "kind,head,offset,mean_weight,cells\n";
  for (int h = 0; h < d.heads; ++h) {
    const auto& mean = d.mean_weight[static_cast<std::size_t>(h)];
    for (std::size_t k = 0; k < d.offsets.size(); ++k)
      out << "offset," << h << ',' << d.offsets[k] << ',' << format_float(static_cast<float>(mean[k])) << ','
          << d.cells[k] << '\n';
    out << "sink," << h << ",0," << format_float(static_cast<float>(d.sink[static_cast<std::size_t>(h)])) << ','
        << d.sink_queries << '\n';
  }
}

}  // namespace poslab

#include "core/model/pair_scores.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace poslab {

Result<PairScores> pair_scores(const LayerAttention& a, const TransformerConfig& c, const PositionIntervention& v, int head, int tokens) {
  if (a.queries.size() == 0 || a.keys.size() == 0) return Error{"layer " + std::to_string(a.layer) + "'s queries and keys were not kept"};
  if (head < 0 || head >= c.heads) return Error{"head " + std::to_string(head) + " is out of range: the model has " + std::to_string(c.heads)};
  const int dh = static_cast<int>(a.queries.cols()) / c.heads;
  // The layer's pairs as this pass ran them (DeepSeek's position slice, Gemma 4's full layers'
  // width, --rotary-dim's): the angles the forward pass takes, none where the layer did not rotate.
  const RopeFrequencies f = model_rope_frequencies(c, v, tokens, a.layer);
  const int pairs = std::min(static_cast<int>(f.thetas.size()), dh / 2), rotary = 2 * pairs;
  const bool interleaved = v.pairing.value_or(c.rope_style) == RopeStyle::Interleaved;
  PairScores out;
  out.thetas.assign(f.thetas.begin(), f.thetas.begin() + pairs);
  if (!a.rotated) std::fill(out.thetas.begin(), out.thetas.end(), 0.0);
  const auto Q = a.queries.middleCols(static_cast<Eigen::Index>(head) * dh, dh);
  const auto K = a.keys.middleCols(static_cast<Eigen::Index>(head) * dh, dh);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));  // the backends' 1/√d; any other scale is in q
  const auto part = [&](int first, int second) {
    Matrix P = (Q.col(first) * K.col(first).transpose() + Q.col(second) * K.col(second).transpose()) * scale;
    return P;
  };
  for (int i = 0; i < pairs; ++i) out.parts.push_back(interleaved ? part(2 * i, 2 * i + 1) : part(i, i + pairs));
  if (rotary < dh) out.rest = (Q.rightCols(dh - rotary) * K.rightCols(dh - rotary).transpose()) * scale;
  const auto mask = [&a](Matrix& M) {
    for (Eigen::Index i = 0; i < M.rows(); ++i)
      for (Eigen::Index j = 0; j < M.cols(); ++j)
        if (a.masked(static_cast<int>(i), static_cast<int>(j))) M(i, j) = 0.0f;
  };
  for (Matrix& P : out.parts) mask(P);
  if (out.rest.size() > 0) mask(out.rest);
  return out;
}

}  // namespace poslab

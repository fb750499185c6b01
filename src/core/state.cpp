#include "core/state.hpp"

#include <cmath>

namespace poslab {

std::string_view to_string(EncodingKind v) {
  switch (v) {
    case EncodingKind::None: return "none";
    case EncodingKind::Sinusoidal: return "sinusoidal";
    case EncodingKind::Rope: return "rope";
  }
  return "?";
}
std::string_view to_string(RopeStyle v) {
  return v == RopeStyle::Interleaved ? "interleaved" : "half";
}
std::string_view to_string(ProjectionKind v) {
  return v == ProjectionKind::Random ? "random" : "identity";
}
std::string_view to_string(Backend v) { return v == Backend::Gpu ? "gpu" : "cpu"; }
std::string_view to_string(HeatmapValue v) {
  return v == HeatmapValue::Weights ? "weights" : "scores";
}

std::vector<int> valid_head_counts(int dim) {
  std::vector<int> counts;
  for (int h = 1; h <= dim; ++h)
    if (dim % h == 0) counts.push_back(h);
  return counts;
}

Status validate(const ModelSettings& s, int dim) {
  if (s.heads < 1 || dim % s.heads != 0) {
    std::string list;
    for (int h : valid_head_counts(dim)) list += (list.empty() ? "" : ", ") + std::to_string(h);
    return Error{"the number of heads must divide the embedding width " + std::to_string(dim) +
                 " (one of " + list + "), got " + std::to_string(s.heads)};
  }
  if (!(std::isfinite(s.base) && s.base > 1.0))
    return Error{"the base must be a number greater than 1"};
  if (!(std::isfinite(s.sigma) && s.sigma > 0.0))
    return Error{"sigma must be a positive number"};
  if (s.pad_to < 0 || s.pad_to > 16384)
    return Error{"pad-to must be between 0 and 16384"};
  return Ok{};
}

const std::vector<std::string>& sample_sentences() {
  static const std::vector<std::string> samples = {
      "The dog chased another dog",
      "May the force be with you.",
      "The cat sat on the mat.",
      "We saw the man with the telescope.",
      "Attention is all you need.",
      "The quick brown fox jumps over the lazy dog.",
      "She said that he said that they said no.",
      "Rotary position embeddings rotate queries and keys.",
  };
  return samples;
}

}  // namespace poslab

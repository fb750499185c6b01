#include "core/state.hpp"

#include <cmath>
#include <cstdio>

#include "base/number_text.hpp"

namespace poslab {

std::string_view to_string(EncodingKind v) {
  switch (v) {
    case EncodingKind::None: return "none";
    case EncodingKind::Integer: return "integer";
    case EncodingKind::Normalized: return "normalized";
    case EncodingKind::Binary: return "binary";
    case EncodingKind::Sinusoidal: return "sinusoidal";
    case EncodingKind::Learned: return "learned";
    case EncodingKind::Rope: return "rope";
  }
  return "?";
}
std::string_view to_string(RopeStyle v) {
  return v == RopeStyle::Interleaved ? "interleaved" : "half";
}
std::string_view to_string(LongRopeSet v) {
  return v == LongRopeSet::Short ? "short" : v == LongRopeSet::Long ? "long" : "model";
}
std::string_view to_string(ProjectionKind v) {
  return v == ProjectionKind::Random ? "random" : "identity";
}
std::string_view to_string(BiasKind v) {
  switch (v) {
    case BiasKind::None: return "none";
    case BiasKind::Alibi: return "alibi";
    case BiasKind::T5: return "t5";
    case BiasKind::Shaw: return "shaw";
  }
  return "?";
}
std::string_view to_string(Rope2d v) { return v == Rope2d::Axial ? "axial" : "mixed"; }
std::string_view to_string(BinaryValues v) { return v == BinaryValues::ZeroOne ? "01" : "pm1"; }
std::string_view to_string(Backend v) {
  switch (v) {
    case Backend::Auto: return "auto";
    case Backend::Gpu: return "gpu";
    case Backend::Cpu: return "cpu";
  }
  return "?";
}
std::string_view to_string(TrajectoryPlane v) { return v == TrajectoryPlane::Pca ? "pca" : "dims"; }

std::string_view to_string(HeatmapValue v) {
  return v == HeatmapValue::Weights ? "weights" : "scores";
}

namespace {
}  // namespace

std::string describe_encoding(const ModelSettings& m) {
  std::string text;
  switch (m.encoding) {
    case EncodingKind::None: text = "no positions"; break;
    case EncodingKind::Integer: text = "integer positions"; break;
    case EncodingKind::Normalized: text = "normalized positions p/N"; break;
    case EncodingKind::Binary:
      text = std::string("binary positions ") + (m.binary_values == BinaryValues::ZeroOne ? "{0, 1}" : "{−1, +1}");
      break;
    case EncodingKind::Sinusoidal: text = "sinusoidal, base " + number_text(m.base); break;
    case EncodingKind::Learned:
      text = m.learned_file.empty() ? "learned table (seeded, T_max " + std::to_string(m.learned_max) + ")"
                                    : "learned table " + m.learned_file;
      break;
    case EncodingKind::Rope:
      text = std::string("RoPE ") + (m.rope_style == RopeStyle::Interleaved ? "interleaved" : "rotate-half") +
             ", base " + number_text(m.base);
      if (m.grid_width > 0)
        text += std::string(", 2-D ") + (m.rope_2d == Rope2d::Axial ? "axial" : "mixed") + " on " +
                std::to_string(m.grid_width) + "×" + std::to_string(m.grid_height);
      if (m.rotary_dim > 0) text += ", rotary dim " + std::to_string(m.rotary_dim);
      if (m.rope_fraction < 1.0) text += ", p " + number_text(m.rope_fraction);
      if (m.scaling.type != RopeScalingType::None)
        text += ", " + std::string(to_string(m.scaling.type)) + " ×" + number_text(m.scaling.factor) + " of " +
                std::to_string(m.scaling.original_max_position);
      if (m.cls) text += ", CLS unrotated";
      break;
  }
  switch (m.bias) {
    case BiasKind::None: break;
    case BiasKind::Alibi: text += std::string(" · ALiBi ") + (m.causal ? "(causal)" : "(symmetric)"); break;
    case BiasKind::T5:
      text += " · T5 bias (" + std::to_string(m.buckets) + " buckets, max distance " + std::to_string(m.max_distance) + ")";
      break;
    case BiasKind::Shaw: text += " · Shaw relative vectors (clip " + std::to_string(m.clip) + ")"; break;
  }
  if (!m.cross_sentence.empty()) text += " · cross-attention";
  return text;
}

int key_value_heads(const ModelSettings& s) { return s.kv_heads == 0 ? s.heads : s.kv_heads; }

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
  if (s.kv_heads != 0) {
    if (s.kv_heads < 1 || s.heads % s.kv_heads != 0)
      return Error{"the key/value heads must divide the " + std::to_string(s.heads) + " query heads, got " +
                   std::to_string(s.kv_heads)};
    if (s.projection != ProjectionKind::Random && s.kv_heads != s.heads)
      return Error{"grouped-query attention needs random projections: with identity, each head's keys are its "
                   "own slice of the dimensions"};
  }
  if (!(std::isfinite(s.base) && s.base > 1.0))
    return Error{"the base must be a number greater than 1"};
  if (!(std::isfinite(s.sigma) && s.sigma > 0.0))
    return Error{"sigma must be a positive number"};
  if (s.pad_to < 0 || s.pad_to > 16384)
    return Error{"pad-to must be between 0 and 16384"};
  const int dh = dim / s.heads;
  if (s.rotary_dim < 0 || s.rotary_dim > dh || s.rotary_dim % 2 != 0)
    return Error{"rotary-dim must be an even number from 2 to d_h = " + std::to_string(dh) + " (0 = all), got " +
                 std::to_string(s.rotary_dim)};
  if (!(s.rope_fraction >= 0.0 && s.rope_fraction <= 1.0))
    return Error{"rope-fraction p must be between 0 and 1"};
  if (auto v = validate(s.scaling); !v) return v;
  if (s.learned_max < 1 || s.learned_max > 65536) return Error{"learned-max must be between 1 and 65536"};
  if (s.grid_width < 0 || s.grid_height < 0 || (s.grid_width == 0) != (s.grid_height == 0))
    return Error{"the grid must be W×H with both sides positive"};
  if (s.buckets < 2 || s.buckets > 1024) return Error{"buckets must be between 2 and 1024"};
  if (s.max_distance < 1) return Error{"max-distance must be at least 1"};
  if (s.clip < 0 || s.clip > 4096) return Error{"clip must be between 0 and 4096"};
  if (s.bias == BiasKind::Shaw && !s.cross_sentence.empty())
    return Error{"Shaw's relative vectors are defined for self-attention only"};
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

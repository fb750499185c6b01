#include "core/train/config.hpp"

namespace poslab {

Status validate(const TrainModelConfig& c) {
  const auto fail = [](const std::string& what) -> Status { return Error{"model: " + what}; };
  if (c.vocab < 2) return fail("the vocabulary needs at least 2 tokens");
  if (c.width < 2 || c.heads < 1 || c.layers < 1 || c.mlp() < 1)
    return fail("width, heads, layers and the MLP width must be at least 1 (width at least 2)");
  if (c.width % c.heads != 0)
    return fail(std::to_string(c.heads) + " heads do not divide the width " + std::to_string(c.width));
  if (c.max_positions < 1) return fail("max_positions must be at least 1");
  if (c.positions == PositionKind::Rope) {
    if (!(c.rope_theta > 1.0)) return fail("the RoPE base must be greater than 1");
    if (!(c.partial_rotary > 0.0 && c.partial_rotary <= 1.0)) return fail("partial_rotary_factor must be in (0, 1]");
    if (!(c.rope_fraction >= 0.0 && c.rope_fraction <= 1.0)) return fail("the p-RoPE fraction must be in [0, 1]");
    if (c.rotary_dim() < 2) return fail("the rotary width of a head is less than 2 dimensions");
  }
  if (c.positions == PositionKind::T5 && (c.t5_buckets < 2 || c.t5_max_distance < 1))
    return fail("T5 needs at least 2 buckets and a max_distance of at least 1");
  if (!(c.norm_eps > 0.0)) return fail("norm_eps must be positive");
  return Ok{};
}

Status check_app_limits(const TrainModelConfig& c) {
  if (auto s = validate(c); !s) return s;
  if (c.layers < 1 || c.layers > 4) return Error{"model: 1 to 4 layers, not " + std::to_string(c.layers)};
  if (c.width < 32 || c.width > 256) return Error{"model: width 32 to 256, not " + std::to_string(c.width)};
  return Ok{};
}

TransformerConfig transformer_config(const TrainModelConfig& c) {
  TransformerConfig t;
  t.arch = &architecture_named("poslab");
  t.hidden = c.width;
  t.layers = c.layers;
  t.heads = t.kv_heads = c.heads;
  t.head_dim = c.head_dim();
  t.intermediate = c.mlp();
  t.vocab = c.vocab;
  t.max_positions = c.max_positions;
  t.norm_eps = c.norm_eps;
  t.activation = Activation::Silu;
  t.attention_bias = false;
  t.tie_embeddings = true;
  t.rope_theta = c.rope_theta;
  t.partial_rotary = c.partial_rotary;
  t.rotary_dim = c.rotary_dim();
  t.positions = c.positions;
  t.rope_fraction = c.rope_fraction;
  t.t5_buckets = c.t5_buckets;
  t.t5_max_distance = c.t5_max_distance;
  return t;
}

Result<TrainModelConfig> train_model_config(const TransformerConfig& t) {
  if (t.arch->name != "llama" && t.arch->name != "poslab") return Error{"not a model PosLab trained (" + t.arch->name + ")"};
  if (t.kv_heads != t.heads || t.head_dim * t.heads != t.hidden || !t.tie_embeddings ||
      t.activation != Activation::Silu || t.attention_bias || t.scaling.type != RopeScalingType::None)
    return Error{"the model differs from PosLab's training model (grouped heads, untied or biased weights, or scaling)"};
  TrainModelConfig c;
  c.vocab = t.vocab;
  c.width = t.hidden;
  c.heads = t.heads;
  c.layers = t.layers;
  c.mlp_width = t.intermediate;
  c.max_positions = t.max_positions;
  c.positions = t.positions;
  c.rope_theta = t.rope_theta;
  c.partial_rotary = t.partial_rotary;
  c.rope_fraction = t.rope_fraction;
  c.t5_buckets = t.t5_buckets;
  c.t5_max_distance = t.t5_max_distance;
  c.norm_eps = t.norm_eps;
  if (auto s = validate(c); !s) return Error{s.error()};
  return c;
}

Result<PositionKind> parse_position_kind(const std::string& name) {
  for (PositionKind p : {PositionKind::None, PositionKind::Sinusoidal, PositionKind::Learned, PositionKind::Rope,
                         PositionKind::Alibi, PositionKind::T5})
    if (to_string(p) == name) return p;
  return Error{"unknown encoding \"" + name + "\" (none, sinusoidal, learned, rope, alibi, t5)"};
}

}  // namespace poslab

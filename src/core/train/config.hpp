#pragma once
// The shape of a model PosLab trains: Llama's decoder block (pre-norm RMSNorm, multi-head causal
// attention, SwiGLU MLP, final RMSNorm, tied embeddings) with the positional encoding as the one
// variable. The same sizes are written to config.json when the model is saved.
#include <string>

#include "core/model/architecture.hpp"
#include "core/model/transformer_config.hpp"
#include "base/result.hpp"

namespace poslab {

struct TrainModelConfig {
  int vocab = 17;          // token ids 0 … vocab − 1 (the task's alphabet and its separator)
  int width = 64;          // d
  int heads = 4;           // h; d_h = d / h
  int layers = 2;
  int mlp_width = 0;       // F, the SwiGLU's inner width; 0 means 4·d (see mlp())
  int max_positions = 64;  // rows of the learned table; informative (max_position_embeddings) otherwise
  PositionKind positions = PositionKind::Rope;
  double rope_theta = 10000.0;
  double partial_rotary = 1.0;  // Hugging Face's partial_rotary_factor: the rotated share of a head
  double rope_fraction = 1.0;   // p-RoPE: the share of the rotary pairs (the fastest) that rotate
  int t5_buckets = 32, t5_max_distance = 128;
  double norm_eps = 1e-5;

  int head_dim() const { return width / heads; }
  int mlp() const { return mlp_width > 0 ? mlp_width : 4 * width; }
  // Rotated dimensions of a head, as Hugging Face rounds partial_rotary_factor · d_h.
  int rotary_dim() const { return static_cast<int>(head_dim() * partial_rotary) / 2 * 2; }
  bool operator==(const TrainModelConfig&) const = default;
};

// What the formulas need: every size ≥ 1, heads dividing the width, factors in range. Tiny models
// (the gradient tests) pass; the ranges the app offers are checked by check_app_limits.
Status validate(const TrainModelConfig& c);

// The sizes the Train tab and `poslab train` offer: 1–4 layers, width 32–256.
Status check_app_limits(const TrainModelConfig& c);

// The one conversion between the training model's settings and a checkpoint's config (both ways),
// so that a model saved by `poslab train` reads back as it was trained. The training model is the
// architecture table's "poslab" row: its tensors are the parameters' names and shapes.
TransformerConfig transformer_config(const TrainModelConfig& c);
// An error when the checkpoint is not shaped like PosLab's training model (grouped heads, biases,
// untied embeddings, another activation, context scaling), naming what differs.
Result<TrainModelConfig> train_model_config(const TransformerConfig& t);

// "rope", "alibi", …: as PositionKind's to_string spells them; an unknown name is an error.
Result<PositionKind> parse_position_kind(const std::string& name);

}  // namespace poslab

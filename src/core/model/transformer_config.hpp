#pragma once
// Every config.json field that changes a model's computation, read and checked once.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/encodings/rope_scaling.hpp"
#include "core/model/architecture.hpp"
#include "core/result.hpp"

namespace poslab {

enum class Activation { Silu, Gelu, GeluTanh, Relu };

struct TrainingRecord {
  std::string task;        // poslab_task, a task's name (core/train/tasks.hpp checks it)
  int train_length = 0;    // poslab_train_length
  std::uint64_t seed = 0;  // poslab_seed
};

struct TransformerConfig {
  const Architecture* arch = nullptr;
  int hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0;
  int max_positions = 0;       // GPT-2's n_positions (the rows of its position table); else informative
  double norm_eps = 1e-5;      // rms_norm_eps or layer_norm_epsilon
  Activation activation = Activation::Silu;
  bool attention_bias = false; // q, k, v (and for Llama o) carry biases
  bool tie_embeddings = false; // lm_head is the token embedding table
  double rope_theta = 10000.0;
  RopeScaling scaling;
  double partial_rotary = 1.0; // partial_rotary_factor: the rotated share of a head
  int rotary_dim = 0;          // rotated dimensions of a head (partial_rotary_factor · head_dim)
  // Where positions enter: the architecture's way, or PosLab's poslab_positions key.
  PositionKind positions = PositionKind::Rope;
  double rope_fraction = 1.0;  // p-RoPE (poslab_rope_fraction): the fraction of pairs that rotate
  int t5_buckets = 32, t5_max_distance = 128;  // poslab_t5_buckets, poslab_t5_max_distance
  // A model PosLab trained: its task, training length and seed (poslab_task, …), else empty.
  std::optional<TrainingRecord> training;

  int query_width() const { return heads * head_dim; }
  int kv_width() const { return kv_heads * head_dim; }
};

// Reads config.json's text (once) through the architecture's keys and defaults; `name` is used in
// messages. Missing sizes, sizes that disagree (heads not dividing the width without a head_dim,
// key/value heads not dividing heads), values without meaning (a base ≤ 1, eps ≤ 0) and unknown
// activations are errors naming the key.
Result<TransformerConfig> parse_transformer_config(std::string_view json_text, const std::string& name);

// A size of the config (Dim::None: 0), and whether a tensor the config's architecture lists is read.
std::int64_t dimension(const TransformerConfig& c, Dim d);
bool is_needed(const TransformerConfig& c, Need n);

// "silu", "gelu_new", …: as config.json spells it.
std::string_view to_string(Activation a);

}  // namespace poslab

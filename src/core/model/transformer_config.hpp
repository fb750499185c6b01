#pragma once
// Every config.json field that changes a model's computation, read and checked once.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/encodings/rope_scaling.hpp"
#include "core/model/architecture.hpp"
#include "base/result.hpp"

namespace poslab {

enum class Activation { Silu, Gelu, GeluTanh, Relu };

struct TrainingRecord {
  std::string task;        // poslab_task, a task's name (core/train/tasks.hpp checks it)
  int train_length = 0;    // poslab_train_length
  std::uint64_t seed = 0;  // poslab_seed
};

// Where config.json gave each RoPE value ("rope_parameters.full_attention.rope_theta",
// "rope_theta"); empty: the family's default.
struct RopeSources {
  std::string theta, scaling, partial, local_theta;
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
  RopeSources sources;
  // M-RoPE (Qwen-VL): the rotary pairs carrying t, h and w (sections in order, or interleaved);
  // empty: 1-D RoPE. A text's three position ids are equal, so on text it is 1-D RoPE exactly.
  std::vector<int> mrope_section;
  bool mrope_interleaved = false;
  int spatial_merge = 2;  // a vision wrapper's vision_config.spatial_merge_size: patches per LM token each way
  double partial_rotary = 1.0; // partial_rotary_factor: the rotated share of a head
  int rotary_dim = 0;          // rotated dimensions of a head (partial_rotary_factor · head_dim)
  // Where positions enter: the architecture's way, or PosLab's poslab_positions key.
  PositionKind positions = PositionKind::Rope;
  RopeStyle rope_style = RopeStyle::Half;  // the checkpoint's pairing (GPT-J: interleaved)
  std::optional<double> rope_local_theta;  // Gemma 3: the local (windowed) layers' base, unscaled
  double rope_fraction = 1.0;  // p-RoPE (poslab_rope_fraction): the fraction of pairs that rotate
  int t5_buckets = 32, t5_max_distance = 128;  // poslab_t5_buckets, poslab_t5_max_distance
  // Per layer: whether it attends through the sliding window (its "local" layers), and whether
  // it rotates q and k (SmolLM3's NoPE layers do not); empty lists: no window, every layer.
  int sliding_window = 0;  // keys within this many tokens of the query, itself included; 0: none
  std::vector<std::uint8_t> windowed, rope_layers;
  bool parallel_residual = false;  // attention and MLP both read x (GPT-NeoX, GPT-J)
  double query_scale = 0.0;        // the scores' factor when not 1/√head_dim (Gemma's query_pre_attn_scalar)
  double attn_softcap = 0.0, final_softcap = 0.0;  // Gemma 2: c·tanh(s/c) of the scores and logits; 0: none
  // Encoders and encoder–decoders (BERT, ModernBERT, T5).
  int token_types = 2;          // BERT's type_vocab_size (segment 0's row is added)
  int decoder_layers = 0;       // T5's decoder stack (num_decoder_layers, else the encoder's count)
  int decoder_start = 0;        // T5: the decoder's first token (decoder_start_token_id)
  bool gated_mlp = true;        // act(gate) ⊙ up; T5's "gated-gelu" turns it on for a plain row
  Activation head_activation = Activation::Gelu;  // the masked-LM head's transform
  double output_scale = 1.0;    // T5 tied: the decoder's output × d_model^−½ before the LM head
  // A mixture of experts (Qwen3-MoE, Mixtral): the experts, how many each token is routed to, an
  // expert's inner width, whether the chosen weights are renormalized, and which layers are sparse.
  int experts = 0, experts_per_token = 0, expert_intermediate = 0;
  bool norm_topk = false;
  std::vector<std::uint8_t> sparse;
  double swiglu_limit = 7.0;  // GPT-OSS: its experts' gate clamped above, up on both sides, at this
  // Llama 4: chunked attention on the layers that rotate (attention_chunk_size; 0: none), an L2
  // norm of each head's q and k after RoPE there (use_qk_norm), and on the NoPE layers a query
  // temperature log(⌊(p + 1) / floor_scale⌋ + 1)·attn_scale + 1 at position p (attn_temperature_tuning).
  int chunk_size = 0;
  std::vector<std::uint8_t> chunked;  // per layer: attends within chunks
  bool qk_l2_norm = false;
  bool temperature_tuning = false;
  double floor_scale = 8192.0, attn_scale = 0.1;
  bool learned_sinks = false;  // GPT-OSS: self_attn.sinks, a logit per head in every softmax row
  // DeepSeek's latent attention: q's low rank (0: one q_proj), the compressed kv's rank, and each
  // head's content and position widths (head_dim is their sum, rotary_dim the position width) and
  // value width. Its mixture: shared experts, dense first layers, groups of experts.
  int q_lora_rank = 0, kv_lora_rank = 0, qk_nope_dim = 0, v_head_dim = 0;
  int shared_experts = 0, expert_groups = 1, groups_kept = 1;
  double routed_scaling = 1.0;
  // Gemma 4: the full-attention layers' head width and, with keys_as_values (attention_k_eq_v),
  // key/value heads (0: head_dim, kv_heads), their values the keys' own projection; the last
  // kv_shared_layers layers reusing the keys and values of the last earlier layer of their kind,
  // with an MLP twice as wide (use_double_wide_mlp); the per-layer inputs' width and table rows;
  // the full layers' proportional RoPE, of whose pairs the first global_rotating_pairs turn.
  int global_head_dim = 0, global_kv_heads = 0;
  bool keys_as_values = false;
  int kv_shared_layers = 0;
  bool double_wide_mlp = false;
  int per_layer_input = 0, per_layer_vocab = 0;
  bool proportional_rope = false;
  int global_rotating_pairs = 0;
  // What a layer's attention and MLP are made of: its head width, key/value heads, the dimensions
  // RoPE turns (rotary_dim) and the share of their pairs that do (p-RoPE, proportional), its MLP's
  // width. Every layer's is the model's except Gemma 4's full-attention and KV-sharing layers.
  struct LayerShape {
    int head_dim = 0, kv_heads = 0, rotary_dim = 0;
    double rope_fraction = 1.0;
    int ffn = 0;
    int query_width(int heads) const { return heads * head_dim; }
    int kv_width() const { return kv_heads * head_dim; }
  };
  LayerShape shape(int layer) const;
  // The layer whose keys and values `layer` reuses (Gemma 4's KV sharing); -1: its own.
  int kv_source(int layer) const;
  // What --rotary-dim sets: the dimensions of each head RoPE turns (Gemma 4: of its full layers'
  // heads, whose proportional RoPE turns 2 · global_rotating_pairs of them), and its most.
  int own_rotary_dim() const { return proportional_rope ? 2 * global_rotating_pairs : rotary_dim; }
  int rotary_limit() const { return proportional_rope ? global_head_dim : head_dim; }
  bool is_chunked(int layer) const { return chunk_size > 0 && !chunked.empty() && chunked[static_cast<std::size_t>(layer)]; }
  bool is_sparse(int layer) const { return !sparse.empty() && sparse[static_cast<std::size_t>(layer)]; }
  // A model PosLab trained: its task, training length and seed (poslab_task, …), else empty.
  std::optional<TrainingRecord> training;

  int query_width() const { return heads * head_dim; }
  bool latent() const { return arch->latent_attention; }
  // A local layer: one that attends through the window (and, in Gemma 3, rotates by the local base).
  bool is_local(int layer) const { return sliding_window > 0 && !windowed.empty() && windowed[static_cast<std::size_t>(layer)]; }
  bool has_local_layers() const;
  // A layer whose RoPE ignores the config's scaling: a local layer of Gemma 3 (its own base) or of
  // OLMo 3 (the global base).
  bool unscaled_rope(int layer) const { return is_local(layer) && (rope_local_theta || arch->unscaled_sliding_rope); }
  bool rotates(int layer) const { return rope_layers.empty() || rope_layers[static_cast<std::size_t>(layer)]; }
  int kv_width() const { return kv_heads * head_dim; }
  bool bidirectional() const { return arch->bidirectional; }
  bool masked_lm() const { return arch->head == OutputHead::MaskedLm; }
  bool encoder_decoder() const { return arch->stacks == Stacks::EncoderDecoder; }
};

// Reads config.json's text (once) through the architecture's keys and defaults; `name` is used in
// messages. Missing sizes, sizes that disagree (heads not dividing the width without a head_dim,
// key/value heads not dividing heads), values without meaning (a base ≤ 1, eps ≤ 0) and unknown
// activations are errors naming the key.
Result<TransformerConfig> parse_transformer_config(std::string_view json_text, const std::string& name);

// A size of the config (Dim::None: 0), and whether a tensor the config's architecture lists is read.
std::int64_t dimension(const TransformerConfig& c, Dim d);
// The same in layer `layer`, whose heads and MLP may be its own (TransformerConfig::shape).
std::int64_t dimension(const TransformerConfig& c, Dim d, int layer);
bool is_needed(const TransformerConfig& c, Need n);
// The same for a tensor of layer `layer` (a mixture's dense and sparse layers read different ones).
bool is_needed(const TransformerConfig& c, Need n, int layer);

// "silu", "gelu_new", …: as config.json spells it.
std::string_view to_string(Activation a);

}  // namespace poslab

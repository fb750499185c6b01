#pragma once
// A trained model as a Hugging Face-style folder that PosLab's real-model path (Checkpoint::open,
// run_forward) opens unchanged:
//   config.json        a RoPE model (every pair rotating) is exactly a Llama config:
//                      architectures ["LlamaForCausalLM"], model_type "llama", vocab_size,
//                      hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
//                      num_key_value_heads (= heads), head_dim, rms_norm_eps, hidden_act "silu",
//                      rope_theta, partial_rotary_factor (only when < 1), tie_word_embeddings true,
//                      max_position_embeddings (the training sequence's tokens).
//                      Every other model: architectures ["PosLabForCausalLM"], model_type "poslab",
//                      the same keys plus
//                        poslab_positions        "none" | "sinusoidal" | "learned" | "rope" | "alibi" | "t5"
//                        poslab_rope_fraction    p-RoPE: the share of rotary pairs that rotate (< 1)
//                        poslab_t5_buckets, poslab_t5_max_distance   (T5)
//                      Every run also writes poslab_task ("copy" | "recall"), poslab_train_length
//                      (the task's length) and poslab_seed.
//   model.safetensors  F32, Llama's names: model.embed_tokens.weight [V × d] (tied: no lm_head),
//                      model.layers.{i}.input_layernorm.weight [d],
//                      model.layers.{i}.self_attn.{q,k,v,o}_proj.weight [d × d],
//                      model.layers.{i}.post_attention_layernorm.weight [d],
//                      model.layers.{i}.mlp.{gate,up}_proj.weight [F × d], …down_proj.weight [d × F],
//                      model.norm.weight [d]; and model.embed_positions.weight [max_positions × d]
//                      (learned), model.relative_attention_bias.weight [buckets × heads] (T5).
//   tokenizer.json     byte-level BPE whose vocabulary is the task's characters, one token each,
//                      ids as the task's, no merges (so "abc|abc" is 7 tokens).
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/train/trainer.hpp"

namespace poslab {

struct TrainedModel {
  TrainModelConfig model;
  Task task;
  int train_length = 0;
  std::uint64_t seed = 0;
  Params<float> params;
};

TrainedModel trained_model(TrainRun run);

std::string trained_config_json(const TrainedModel& m);
std::string task_tokenizer_json(const Task& task);
// The safetensors bytes: u64 little-endian header length, the JSON header (dtype, shape,
// data_offsets per tensor, padded with spaces to 8 bytes), then the F32 data.
std::string safetensors_bytes(const Params<float>& params);

// Writes the three files into `dir` (created if needed), each atomically.
Status save_model_folder(const TrainedModel& m, const std::filesystem::path& dir);

// Reads a folder save_model_folder wrote; a folder of another model is an error saying why.
Result<TrainedModel> load_model_folder(const std::filesystem::path& dir);

}  // namespace poslab

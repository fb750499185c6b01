#pragma once
// A Hugging Face model folder opened for its forward pass: config.json, the safetensors files
// (one, or the shards an index names) kept memory-mapped, the tokenizer, and every tensor the
// architecture needs found and checked against config.json's sizes. Weights stay in the mapped
// files in their own dtype; read_rows() converts a block of rows to float when it is needed.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.hpp"
#include "core/formats/safetensors.hpp"
#include "core/model/transformer_config.hpp"
#include "base/result.hpp"

namespace poslab {

// MXFP4 (OCP microscaling, GPT-OSS's experts): two FP4 E2M1 values a byte, the low nibble first,
// and one E8M0 scale byte (2^(s − 127)) for each 32 values of a row.
// F8_E4M3 (DeepSeek-V3's files): one byte a value (sign, four exponent bits of bias 7, three
// mantissa bits), each 128 × 128 block times its F32 weight_scale_inv.
enum class WeightType { F32, F16, BF16, MXFP4, F8E4M3 };

// One tensor where it lies in its mapped file: rows × cols (a vector is 1 × n).
struct WeightTensor {
  std::string name;
  const char* data = nullptr;  // null: the architecture has no such tensor (an absent bias)
  WeightType type = WeightType::F32;
  std::int64_t rows = 0, cols = 0;
  const char* scales = nullptr;  // MXFP4: rows × cols/32 scale bytes; F8E4M3: ⌈rows/128⌉ × ⌈cols/128⌉ floats
  bool present() const { return data != nullptr; }
};

// FP4 E2M1's sixteen values by code (sign, two exponent bits, one mantissa bit).
float fp4_e2m1(unsigned code);
// FP8 E4M3 (the FN variant: no infinities, 0x7F and 0xFF are NaN) by byte.
float fp8_e4m3(unsigned byte);

// Rows [first, first + count) as floats into dst (count × cols, row-major).
void read_rows(const WeightTensor& w, std::int64_t first, std::int64_t count, float* dst);
// Columns [first, first + count) of every row as floats into dst (rows × count, row-major).
void read_cols(const WeightTensor& w, std::int64_t first, std::int64_t count, float* dst);
// A whole (small) tensor: a norm's weight, a bias.
RowVector read_vector(const WeightTensor& w);

// One expert of a mixture: a gated MLP (gate and up apart, or stacked as gate_up).
struct ExpertWeights {
  WeightTensor gate, up, down, gate_up;
  WeightTensor gate_up_bias, down_bias;  // GPT-OSS
  // How gate_up and down hold the expert's matrix (a stacked tensor's slot says; TensorSlot::layout).
  WeightLayout gate_up_layout = WeightLayout::OutIn, down_layout = WeightLayout::OutIn;
};

struct LayerWeights {
  WeightTensor attn_norm, attn_norm_bias, q, k, v, q_bias, k_bias, v_bias, qkv, qkv_bias, o, o_bias;
  WeightTensor mlp_norm, mlp_norm_bias, gate, up, up_bias, down, down_bias;
  WeightTensor q_norm, k_norm;                 // per-head norms of q and k (Qwen3, Gemma 3)
  WeightTensor post_attn_norm, post_mlp_norm;  // norms of each half's output (Gemma 2, 3)
  WeightTensor gate_up;                        // gate and up stacked (Phi-3)
  WeightTensor cross_norm, cross_q, cross_k, cross_v, cross_o;  // T5 decoder: attention to the encoder
  WeightTensor router, router_bias;    // a mixture's sparse layer: experts × hidden (GPT-OSS: and a bias)
  WeightTensor shared_gate, shared_up, shared_down;  // Llama 4: the shared expert beside the routed ones
  WeightTensor sinks;                  // GPT-OSS: each head's learned sink logit
  WeightTensor q_a, q_a_norm, q_b, kv_a, kv_a_norm, kv_b;  // DeepSeek's latent attention
  WeightTensor router_correction;      // DeepSeek-V3: added to the scores for choosing only
  // Gemma 4: the per-layer input's gate, projection and norm; the layer's scalar; the router's
  // scales; the experts' pre- and post-norm and the dense MLP's post-norm beside them.
  WeightTensor per_layer_gate, per_layer_up, post_per_layer_norm, layer_scalar;
  WeightTensor router_scale, router_expert_scale, pre_expert_norm, post_expert_norm, post_dense_norm;
  std::vector<ExpertWeights> experts;  // views into the mapped files, never copies
  WeightTensor* slot(TensorRole role);  // null for a role that is not a layer's
};

class TensorIndex;

class Checkpoint {
 public:
  // `dir` is a model folder, or a Hugging Face cache folder (models--ORG--NAME, whose snapshot
  // refs/main names; its files are symlinks into blobs/). Every problem is an error naming the
  // file and the tensor or key.
  static Result<std::shared_ptr<const Checkpoint>> open(const std::filesystem::path& dir);

  const std::filesystem::path& folder() const { return folder_; }
  const TransformerConfig& config() const { return config_; }
  const BpeTokenizer* tokenizer() const { return tokenizer_.get(); }
  std::shared_ptr<const BpeTokenizer> shared_tokenizer() const { return tokenizer_; }
  const WeightTensor& embed() const { return embed_; }
  const WeightTensor& positions() const { return positions_; }  // GPT-2's table; absent for RoPE models
  const WeightTensor& final_norm() const { return final_norm_; }
  const WeightTensor& final_norm_bias() const { return final_norm_bias_; }
  const WeightTensor& lm_head() const { return lm_head_; }      // the embeddings when tied
  const WeightTensor& lm_head_bias() const { return lm_head_bias_; }  // GPT-J's
  const WeightTensor& embed_norm() const { return embed_norm_; }      // BLOOM's LayerNorm of the embeddings
  const WeightTensor& embed_norm_bias() const { return embed_norm_bias_; }
  const WeightTensor& relative_bias() const { return relative_bias_; }  // T5's buckets × heads
  const std::vector<LayerWeights>& layers() const { return layers_; }  // the encoder's, for T5
  const WeightTensor& token_types() const { return token_types_; }     // BERT's segment table
  // A masked-LM head's transform (dense, its bias, the norm and its bias) before the output.
  const WeightTensor& head_dense() const { return head_dense_; }
  const WeightTensor& head_dense_bias() const { return head_dense_bias_; }
  const WeightTensor& head_norm() const { return head_norm_; }
  const WeightTensor& head_norm_bias() const { return head_norm_bias_; }
  // T5's decoder stack: its layers, final norm and bucket table (empty for one-stack models).
  const std::vector<LayerWeights>& decoder_layers() const { return decoder_layers_; }
  const WeightTensor& decoder_final_norm() const { return decoder_final_norm_; }
  const WeightTensor& decoder_relative_bias() const { return decoder_relative_bias_; }
  // Gemma 4's per-layer inputs: their table, the projection of the embeddings into them, its norm.
  const WeightTensor& embed_per_layer() const { return embed_per_layer_; }
  const WeightTensor& per_layer_projection() const { return per_layer_projection_; }
  const WeightTensor& per_layer_projection_norm() const { return per_layer_projection_norm_; }
  std::uint64_t weight_bytes() const { return weight_bytes_; }
  std::string dtype() const { return dtype_; }                    // "BF16", or "F32+F16" when mixed

 private:
  Checkpoint() = default;
  Status resolve_tensors();
  Status check_layer_count(const TensorIndex& index, bool decoder) const;
  Status resolve_layers(const TensorIndex& index, bool decoder, std::set<std::string>& dtypes);
  Result<WeightTensor> resolve(const TensorIndex& index, const TensorSlot& slot, int layer, std::set<std::string>& dtypes, int expert = 0);
  Result<std::vector<WeightTensor>> resolve_stacked(const TensorIndex& index, const TensorSlot& slot, int layer, std::set<std::string>& dtypes);
  Result<WeightTensor> resolve_fp8(const TensorIndex& index, const TensorSlot& slot, int layer, int expert, const SafetensorsFile& file,
                                   const TensorInfo& info, WeightTensor w, std::set<std::string>& dtypes);
  Result<std::vector<WeightTensor>> resolve_mxfp4(const TensorIndex& index, const TensorSlot& slot, int layer, std::set<std::string>& dtypes);
  Status resolve_experts(const TensorIndex& index, int layer, LayerWeights& w, std::set<std::string>& dtypes);
  WeightTensor* model_slot(TensorRole role);

  std::filesystem::path folder_;
  TransformerConfig config_;
  std::shared_ptr<const BpeTokenizer> tokenizer_;
  std::vector<SafetensorsFile> files_;
  std::shared_ptr<void> packs_;  // layer_ops' packed weights of files_, dropped before them (declared after)
  WeightTensor embed_, positions_, final_norm_, final_norm_bias_, lm_head_, relative_bias_;
  WeightTensor lm_head_bias_, embed_norm_, embed_norm_bias_, token_types_;
  WeightTensor head_dense_, head_dense_bias_, head_norm_, head_norm_bias_, decoder_final_norm_, decoder_relative_bias_;
  WeightTensor embed_per_layer_, per_layer_projection_, per_layer_projection_norm_;
  std::vector<LayerWeights> layers_, decoder_layers_;
  std::uint64_t weight_bytes_ = 0;
  std::string dtype_;
};

}  // namespace poslab

#pragma once
// A transformer architecture as data: where its tensors are named and a few flags for what its
// layers do differently (as llama.cpp's llama-arch.cpp does it). Llama, Qwen2 and GPT-2 differ in
// names, norms, biases, the MLP and where positions enter; one forward pass reads this table.
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace poslab {

enum class NormKind { Rms, Layer };         // RMSNorm (weight) or LayerNorm (weight and bias)
enum class MlpKind { Gated, Plain };        // down(act(gate·x) ⊙ up·x), or proj(act(fc·x))
// Where positions enter: RoPE on q and k; a learned table or the sinusoid added to x; nothing
// (NoPE); or a bias on the scores (ALiBi's slopes, T5's learned buckets).
enum class PositionKind { Rope, Learned, Sinusoidal, None, Alibi, T5 };
enum class WeightLayout { OutIn, InOut };   // PyTorch Linear (out × in), or GPT-2's Conv1D (in × out)

// Tensor names; "{L}" stands for the layer's index. An empty name: the architecture has none.
struct TensorNames {
  std::string embed, positions, final_norm, final_norm_bias, lm_head;
  std::string attn_norm, attn_norm_bias, q, k, v, q_bias, k_bias, v_bias, qkv, qkv_bias, o, o_bias;
  std::string mlp_norm, mlp_norm_bias, gate, up, up_bias, down, down_bias;
  std::string relative_bias;  // T5: buckets × heads, shared by every layer
};

struct Architecture {
  std::string name;                        // "llama", "qwen2", "gpt2"
  std::vector<std::string> classes;        // config.json "architectures" entries
  std::vector<std::string> model_types;    // config.json "model_type" values
  NormKind norm = NormKind::Rms;
  MlpKind mlp = MlpKind::Gated;
  PositionKind positions = PositionKind::Rope;  // the default; PosLab's own folders say which
  WeightLayout layout = WeightLayout::OutIn;
  bool qkv_bias = false;                   // q, k and v carry biases whatever config.json says (Qwen2)
  TensorNames names;
};

// Every architecture PosLab runs.
const std::vector<Architecture>& architectures();

// The architecture named by config.json's "architectures" list or, failing that, "model_type".
// Anything else is an error naming what was asked for and what is supported.
Result<const Architecture*> find_architecture(const std::vector<std::string>& classes, const std::string& model_type);

// `pattern` with "{L}" replaced by the layer index.
std::string layer_tensor(const std::string& pattern, int layer);

// "rope", "learned", "sinusoidal", "none", "alibi", "t5": as PosLab's config.json key
// poslab_positions spells them.
std::string_view to_string(PositionKind p);

}  // namespace poslab

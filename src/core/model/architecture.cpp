#include "core/model/architecture.hpp"

#include <algorithm>
#include <stdexcept>

namespace poslab {

namespace {

using R = TensorRole;

// Llama's names and shapes (PyTorch Linear, out × in). Llama with attention_bias has biases on
// q, k, v and o.
std::vector<TensorSlot> llama_tensors() {
  return {
      {R::Embed, "model.embed_tokens.weight", Dim::Vocab, Dim::Hidden},
      {R::AttnNorm, "model.layers.{L}.input_layernorm.weight", Dim::Hidden, Dim::None},
      {R::Q, "model.layers.{L}.self_attn.q_proj.weight", Dim::QueryWidth, Dim::Hidden},
      {R::K, "model.layers.{L}.self_attn.k_proj.weight", Dim::KvWidth, Dim::Hidden},
      {R::V, "model.layers.{L}.self_attn.v_proj.weight", Dim::KvWidth, Dim::Hidden},
      {R::QBias, "model.layers.{L}.self_attn.q_proj.bias", Dim::QueryWidth, Dim::None, Need::IfAttentionBias},
      {R::KBias, "model.layers.{L}.self_attn.k_proj.bias", Dim::KvWidth, Dim::None, Need::IfAttentionBias},
      {R::VBias, "model.layers.{L}.self_attn.v_proj.bias", Dim::KvWidth, Dim::None, Need::IfAttentionBias},
      {R::O, "model.layers.{L}.self_attn.o_proj.weight", Dim::Hidden, Dim::QueryWidth},
      {R::OBias, "model.layers.{L}.self_attn.o_proj.bias", Dim::Hidden, Dim::None, Need::IfAttentionBias},
      {R::MlpNorm, "model.layers.{L}.post_attention_layernorm.weight", Dim::Hidden, Dim::None},
      {R::Gate, "model.layers.{L}.mlp.gate_proj.weight", Dim::Ffn, Dim::Hidden},
      {R::Up, "model.layers.{L}.mlp.up_proj.weight", Dim::Ffn, Dim::Hidden},
      {R::Down, "model.layers.{L}.mlp.down_proj.weight", Dim::Hidden, Dim::Ffn},
      {R::FinalNorm, "model.norm.weight", Dim::Hidden, Dim::None, Need::Always, true},
      {R::LmHead, "lm_head.weight", Dim::Vocab, Dim::Hidden, Need::IfUntied, true},
  };
}

Architecture llama() {
  Architecture a;
  a.name = "llama";
  a.classes = {"LlamaForCausalLM", "MistralForCausalLM", "LlamaModel", "MistralModel"};
  a.model_types = {"llama", "mistral"};
  a.tensors = llama_tensors();
  return a;
}

// Qwen2: Llama's block with biases on q, k and v always, and none on o.
Architecture qwen2() {
  Architecture a = llama();
  a.name = "qwen2";
  a.classes = {"Qwen2ForCausalLM", "Qwen2Model"};
  a.model_types = {"qwen2"};
  a.defaults.qkv_bias = true;
  std::erase_if(a.tensors, [](const TensorSlot& s) { return s.role == R::OBias; });
  for (TensorSlot& s : a.tensors)
    if (s.role == R::QBias || s.role == R::KBias || s.role == R::VBias) s.need = Need::Always;
  return a;
}

// openai-community/gpt2: LayerNorm, a plain GELU MLP, a learned position table, Conv1D weights
// (in × out) with q, k and v fused; newer saves put "transformer." in front of every name but
// lm_head's.
Architecture gpt2() {
  Architecture a;
  a.name = "gpt2";
  a.classes = {"GPT2LMHeadModel", "GPT2Model"};
  a.model_types = {"gpt2"};
  a.norm = NormKind::Layer;
  a.mlp = MlpKind::Plain;
  a.positions = PositionKind::Learned;
  a.layout = WeightLayout::InOut;
  a.keys.hidden = {"hidden_size", "n_embd"};
  a.keys.layers = {"num_hidden_layers", "n_layer"};
  a.keys.heads = {"num_attention_heads", "n_head"};
  a.keys.intermediate = {"intermediate_size", "n_inner"};
  a.keys.max_positions = {"max_position_embeddings", "n_positions"};
  a.keys.activation = "activation_function";
  a.defaults = {"gelu_new", true, 4, 0, true};
  a.prefixes = {"", "transformer."};
  a.tensors = {
      {R::Embed, "wte.weight", Dim::Vocab, Dim::Hidden},
      {R::Positions, "wpe.weight", Dim::Positions, Dim::Hidden, Need::IfLearnedPositions},
      {R::AttnNorm, "h.{L}.ln_1.weight", Dim::Hidden, Dim::None},
      {R::AttnNormBias, "h.{L}.ln_1.bias", Dim::Hidden, Dim::None},
      {R::Qkv, "h.{L}.attn.c_attn.weight", Dim::Hidden, Dim::FusedQkv},
      {R::QkvBias, "h.{L}.attn.c_attn.bias", Dim::FusedQkv, Dim::None},
      {R::O, "h.{L}.attn.c_proj.weight", Dim::QueryWidth, Dim::Hidden},
      {R::OBias, "h.{L}.attn.c_proj.bias", Dim::Hidden, Dim::None},
      {R::MlpNorm, "h.{L}.ln_2.weight", Dim::Hidden, Dim::None},
      {R::MlpNormBias, "h.{L}.ln_2.bias", Dim::Hidden, Dim::None},
      {R::Up, "h.{L}.mlp.c_fc.weight", Dim::Hidden, Dim::Ffn},
      {R::UpBias, "h.{L}.mlp.c_fc.bias", Dim::Ffn, Dim::None},
      {R::Down, "h.{L}.mlp.c_proj.weight", Dim::Ffn, Dim::Hidden},
      {R::DownBias, "h.{L}.mlp.c_proj.bias", Dim::Hidden, Dim::None},
      {R::FinalNorm, "ln_f.weight", Dim::Hidden, Dim::None, Need::Always, true},
      {R::FinalNormBias, "ln_f.bias", Dim::Hidden, Dim::None, Need::Always, true},
      {R::LmHead, "lm_head.weight", Dim::Vocab, Dim::Hidden, Need::IfUntied, true},
  };
  return a;
}

// Models trained by PosLab (`poslab train`): Llama's block and names, with the positional encoding
// named by config.json's poslab_positions (a RoPE model is saved as plain Llama). The training
// model's parameters are this row's tensors, in this order.
Architecture poslab() {
  Architecture a = llama();
  a.name = "poslab";
  a.classes = {"PosLabForCausalLM"};
  a.model_types = {"poslab"};
  const auto at = a.tensors.begin() + 1;  // after the embeddings, before the layers
  a.tensors.insert(at, {{R::Positions, "model.embed_positions.weight", Dim::Positions, Dim::Hidden, Need::IfLearnedPositions},
                        {R::RelativeBias, "model.relative_attention_bias.weight", Dim::Buckets, Dim::Heads, Need::IfT5Positions}});
  return a;
}

}  // namespace

bool is_layer_role(TensorRole r) { return r >= TensorRole::AttnNorm; }

const TensorSlot* Architecture::slot(TensorRole role) const {
  for (const TensorSlot& s : tensors)
    if (s.role == role) return &s;
  return nullptr;
}

const std::vector<Architecture>& architectures() {
  static const std::vector<Architecture> table = {llama(), qwen2(), gpt2(), poslab()};
  return table;
}

const Architecture& architecture_named(std::string_view name) {
  for (const Architecture& a : architectures())
    if (a.name == name) return a;
  throw std::logic_error("no architecture named " + std::string(name));
}

Result<const Architecture*> find_architecture(const std::vector<std::string>& classes, const std::string& model_type) {
  const auto has = [](const std::vector<std::string>& list, const std::string& s) {
    return std::find(list.begin(), list.end(), s) != list.end();
  };
  for (const std::string& c : classes)
    for (const Architecture& a : architectures())
      if (has(a.classes, c)) return &a;
  for (const Architecture& a : architectures())
    if (!model_type.empty() && has(a.model_types, model_type)) return &a;
  std::string asked = model_type.empty() ? std::string() : "model_type \"" + model_type + "\"";
  for (const std::string& c : classes) asked += (asked.empty() ? "" : ", ") + c;
  if (asked.empty()) asked = "no \"architectures\" or \"model_type\"";
  return Error{"config.json names " + asked +
               ", which PosLab cannot run; supported: Llama (Llama 2, 3, 3.1, 3.2, Mistral), Qwen2 / Qwen2.5 and GPT-2"};
}

std::string_view to_string(PositionKind p) {
  switch (p) {
    case PositionKind::Rope: return "rope";
    case PositionKind::Learned: return "learned";
    case PositionKind::Sinusoidal: return "sinusoidal";
    case PositionKind::None: return "none";
    case PositionKind::Alibi: return "alibi";
    case PositionKind::T5: return "t5";
  }
  return "rope";
}

std::string layer_tensor(const std::string& pattern, int layer) {
  std::string out = pattern;
  if (const auto at = out.find("{L}"); at != std::string::npos) out.replace(at, 3, std::to_string(layer));
  return out;
}

}  // namespace poslab

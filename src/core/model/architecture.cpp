#include "core/model/architecture.hpp"

#include <algorithm>

namespace poslab {

namespace {

TensorNames llama_names() {
  TensorNames n;
  n.embed = "model.embed_tokens.weight";
  n.final_norm = "model.norm.weight";
  n.lm_head = "lm_head.weight";
  n.attn_norm = "model.layers.{L}.input_layernorm.weight";
  n.q = "model.layers.{L}.self_attn.q_proj.weight";
  n.k = "model.layers.{L}.self_attn.k_proj.weight";
  n.v = "model.layers.{L}.self_attn.v_proj.weight";
  n.q_bias = "model.layers.{L}.self_attn.q_proj.bias";
  n.k_bias = "model.layers.{L}.self_attn.k_proj.bias";
  n.v_bias = "model.layers.{L}.self_attn.v_proj.bias";
  n.o = "model.layers.{L}.self_attn.o_proj.weight";
  n.o_bias = "model.layers.{L}.self_attn.o_proj.bias";  // Llama with attention_bias
  n.mlp_norm = "model.layers.{L}.post_attention_layernorm.weight";
  n.gate = "model.layers.{L}.mlp.gate_proj.weight";
  n.up = "model.layers.{L}.mlp.up_proj.weight";
  n.down = "model.layers.{L}.mlp.down_proj.weight";
  return n;
}

// openai-community/gpt2's own names; newer saves put "transformer." in front (the checkpoint
// reader tries both).
TensorNames gpt2_names() {
  TensorNames n;
  n.embed = "wte.weight";
  n.positions = "wpe.weight";
  n.final_norm = "ln_f.weight";
  n.final_norm_bias = "ln_f.bias";
  n.lm_head = "lm_head.weight";
  n.attn_norm = "h.{L}.ln_1.weight";
  n.attn_norm_bias = "h.{L}.ln_1.bias";
  n.qkv = "h.{L}.attn.c_attn.weight";
  n.qkv_bias = "h.{L}.attn.c_attn.bias";
  n.o = "h.{L}.attn.c_proj.weight";
  n.o_bias = "h.{L}.attn.c_proj.bias";
  n.mlp_norm = "h.{L}.ln_2.weight";
  n.mlp_norm_bias = "h.{L}.ln_2.bias";
  n.up = "h.{L}.mlp.c_fc.weight";
  n.up_bias = "h.{L}.mlp.c_fc.bias";
  n.down = "h.{L}.mlp.c_proj.weight";
  n.down_bias = "h.{L}.mlp.c_proj.bias";
  return n;
}

std::vector<Architecture> make_table() {
  Architecture llama{"llama",
                     {"LlamaForCausalLM", "MistralForCausalLM", "LlamaModel", "MistralModel"},
                     {"llama", "mistral"},
                     NormKind::Rms, MlpKind::Gated, PositionKind::Rope, WeightLayout::OutIn, false, llama_names()};
  Architecture qwen2{"qwen2", {"Qwen2ForCausalLM", "Qwen2Model"}, {"qwen2"},
                     NormKind::Rms, MlpKind::Gated, PositionKind::Rope, WeightLayout::OutIn, true, llama_names()};
  Architecture gpt2{"gpt2", {"GPT2LMHeadModel", "GPT2Model"}, {"gpt2"},
                    NormKind::Layer, MlpKind::Plain, PositionKind::Learned, WeightLayout::InOut, true, gpt2_names()};
  // Models trained by PosLab (`poslab train`): Llama's block and names, with the positional
  // encoding named by config.json's poslab_positions (a RoPE model is saved as plain Llama).
  TensorNames poslab_names = llama_names();
  poslab_names.positions = "model.embed_positions.weight";
  poslab_names.relative_bias = "model.relative_attention_bias.weight";
  Architecture poslab{"poslab", {"PosLabForCausalLM"}, {"poslab"},
                      NormKind::Rms, MlpKind::Gated, PositionKind::Rope, WeightLayout::OutIn, false, poslab_names};
  return {llama, qwen2, gpt2, poslab};
}

}  // namespace

const std::vector<Architecture>& architectures() {
  static const std::vector<Architecture> table = make_table();
  return table;
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

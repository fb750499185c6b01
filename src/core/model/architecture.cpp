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
  a.title = "Llama";
  a.classes = {"LlamaForCausalLM", "LlamaModel"};
  a.model_types = {"llama"};
  a.tensors = llama_tensors();
  return a;
}

// Mistral: Llama's block; sliding_window, when set, applies to every layer.
Architecture mistral() {
  Architecture a = llama();
  a.name = "mistral";
  a.title = "Mistral";
  a.classes = {"MistralForCausalLM", "MistralModel"};
  a.model_types = {"mistral"};
  a.windows = WindowRule::Every;
  return a;
}

// Qwen2: Llama's block with biases on q, k and v always, and none on o.
Architecture qwen2() {
  Architecture a = llama();
  a.name = "qwen2";
  a.title = "Qwen2";
  a.classes = {"Qwen2ForCausalLM", "Qwen2Model"};
  a.model_types = {"qwen2"};
  a.windows = WindowRule::FromMaxWindowLayers;
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
  a.title = "GPT-2";
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

// Qwen3: Llama's block with an RMSNorm over each head of q and k before RoPE.
Architecture qwen3() {
  Architecture a = llama();
  a.name = "qwen3";
  a.title = "Qwen3";
  a.classes = {"Qwen3ForCausalLM", "Qwen3Model"};
  a.model_types = {"qwen3"};
  a.windows = WindowRule::FromMaxWindowLayers;  // as Qwen2: use_sliding_window from max_window_layers on
  const auto after_v = std::find_if(a.tensors.begin(), a.tensors.end(), [](const TensorSlot& s) { return s.role == R::VBias; }) + 1;
  a.tensors.insert(after_v, {{R::QNorm, "model.layers.{L}.self_attn.q_norm.weight", Dim::HeadDim, Dim::None},
                             {R::KNorm, "model.layers.{L}.self_attn.k_norm.weight", Dim::HeadDim, Dim::None}});
  return a;
}

// SmolLM3: Llama's names; no_rope_layers says which layers rotate (the others have no positions).
Architecture smollm3() {
  Architecture a = llama();
  a.name = "smollm3";
  a.title = "SmolLM3";
  a.classes = {"SmolLM3ForCausalLM", "SmolLM3Model"};
  a.model_types = {"smollm3"};
  a.defaults.nope_interval = 4;
  return a;
}

// Phi-3 (3.5, 4-mini): q, k and v in one Linear, gate and up in another; LongRoPE's factors and a
// rotated share of each head come from config.json.
Architecture phi3() {
  Architecture a = llama();
  a.name = "phi3";
  a.title = "Phi-3";
  a.classes = {"Phi3ForCausalLM", "Phi3Model"};
  a.model_types = {"phi3"};
  a.windows = WindowRule::Every;
  std::erase_if(a.tensors, [](const TensorSlot& s) {
    return s.role == R::Q || s.role == R::K || s.role == R::V || s.role == R::Gate || s.role == R::Up ||
           s.role == R::QBias || s.role == R::KBias || s.role == R::VBias || s.role == R::OBias;
  });
  const auto at = [&a](TensorRole r) {
    return std::find_if(a.tensors.begin(), a.tensors.end(), [r](const TensorSlot& s) { return s.role == r; });
  };
  a.tensors.insert(at(R::O), {R::Qkv, "model.layers.{L}.self_attn.qkv_proj.weight", Dim::FusedQkv, Dim::Hidden});
  a.tensors.insert(at(R::Down), {R::GateUp, "model.layers.{L}.mlp.gate_up_proj.weight", Dim::FusedFfn, Dim::Hidden});
  return a;
}

// Gemma 2: RMSNorm × (1 + w), embeddings × √hidden, a norm before and after each half of the
// block, tanh soft-capping of the scores and the logits, and a window on every other layer.
Architecture gemma2() {
  Architecture a = llama();
  a.name = "gemma2";
  a.title = "Gemma 2";
  a.classes = {"Gemma2ForCausalLM", "Gemma2Model"};
  a.model_types = {"gemma2"};
  a.norm_offset = 1.0;
  a.scale_embeddings = true;
  a.windows = WindowRule::Alternate;
  a.keys.activation = "hidden_activation";
  a.defaults.activation = "gelu_pytorch_tanh";
  a.defaults.tie_embeddings = true;
  a.defaults.max_positions = 8192;
  a.defaults.attn_softcap = 50.0;
  a.defaults.final_softcap = 30.0;
  for (TensorSlot& s : a.tensors)
    if (s.role == R::MlpNorm) s.name = "model.layers.{L}.pre_feedforward_layernorm.weight";
  const auto at = [&a](TensorRole r) {
    return std::find_if(a.tensors.begin(), a.tensors.end(), [r](const TensorSlot& s) { return s.role == r; });
  };
  a.tensors.insert(at(R::MlpNorm), {R::PostAttnNorm, "model.layers.{L}.post_attention_layernorm.weight", Dim::Hidden, Dim::None});
  a.tensors.insert(at(R::FinalNorm), {R::PostMlpNorm, "model.layers.{L}.post_feedforward_layernorm.weight", Dim::Hidden, Dim::None});
  return a;
}

// Gemma 3 (text): Gemma 2's block with Qwen3's q and k norms (× (1 + w)), no soft-capping by
// default, and local layers (all but every sixth) with their own RoPE base.
Architecture gemma3() {
  Architecture a = gemma2();
  a.name = "gemma3";
  a.title = "Gemma 3";
  a.classes = {"Gemma3ForCausalLM"};
  a.model_types = {"gemma3_text"};
  a.windows = WindowRule::Pattern;
  a.keys.local_rope_theta = {"rope_local_base_freq"};
  a.defaults.max_positions = 32768;
  a.defaults.attn_softcap = a.defaults.final_softcap = 0.0;
  const auto after_v = std::find_if(a.tensors.begin(), a.tensors.end(), [](const TensorSlot& s) { return s.role == R::VBias; }) + 1;
  a.tensors.insert(after_v, {{R::QNorm, "model.layers.{L}.self_attn.q_norm.weight", Dim::HeadDim, Dim::None},
                             {R::KNorm, "model.layers.{L}.self_attn.k_norm.weight", Dim::HeadDim, Dim::None}});
  return a;
}

// GPT-NeoX (Pythia): q, k and v fused head by head, parallel attention and MLP, rotate-half RoPE
// on rotary_pct of each head (0.25 by default), an untied embed_out.
Architecture gpt_neox() {
  Architecture a;
  a.name = "gpt_neox";
  a.title = "GPT-NeoX";
  a.classes = {"GPTNeoXForCausalLM", "GPTNeoXModel"};
  a.model_types = {"gpt_neox"};
  a.norm = NormKind::Layer;
  a.mlp = MlpKind::Plain;
  a.qkv_layout = QkvLayout::PerHead;
  a.residual = Residual::Parallel;
  a.keys.norm_eps = {"layer_norm_eps"};
  a.keys.rope_theta = {"rope_theta", "rotary_emb_base"};
  a.keys.partial_rotary = {"rotary_pct", "partial_rotary_factor"};
  a.defaults.activation = "gelu";
  a.defaults.partial_rotary = 0.25;
  const std::string l = "gpt_neox.layers.{L}.";
  a.tensors = {
      {R::Embed, "gpt_neox.embed_in.weight", Dim::Vocab, Dim::Hidden},
      {R::AttnNorm, l + "input_layernorm.weight", Dim::Hidden, Dim::None},
      {R::AttnNormBias, l + "input_layernorm.bias", Dim::Hidden, Dim::None},
      {R::Qkv, l + "attention.query_key_value.weight", Dim::FusedQkv, Dim::Hidden},
      {R::QkvBias, l + "attention.query_key_value.bias", Dim::FusedQkv, Dim::None},
      {R::O, l + "attention.dense.weight", Dim::Hidden, Dim::QueryWidth},
      {R::OBias, l + "attention.dense.bias", Dim::Hidden, Dim::None},
      {R::MlpNorm, l + "post_attention_layernorm.weight", Dim::Hidden, Dim::None},
      {R::MlpNormBias, l + "post_attention_layernorm.bias", Dim::Hidden, Dim::None},
      {R::Up, l + "mlp.dense_h_to_4h.weight", Dim::Ffn, Dim::Hidden},
      {R::UpBias, l + "mlp.dense_h_to_4h.bias", Dim::Ffn, Dim::None},
      {R::Down, l + "mlp.dense_4h_to_h.weight", Dim::Hidden, Dim::Ffn},
      {R::DownBias, l + "mlp.dense_4h_to_h.bias", Dim::Hidden, Dim::None},
      {R::FinalNorm, "gpt_neox.final_layer_norm.weight", Dim::Hidden, Dim::None, Need::Always, true},
      {R::FinalNormBias, "gpt_neox.final_layer_norm.bias", Dim::Hidden, Dim::None, Need::Always, true},
      {R::LmHead, "embed_out.weight", Dim::Vocab, Dim::Hidden, Need::IfUntied, true},
  };
  return a;
}

// GPT-J: interleaved RoPE (RoFormer's pairs) on rotary_dim of each head, attention and MLP in
// parallel from one LayerNorm, separate unbiased q, k, v, an LM head with a bias.
Architecture gptj() {
  Architecture a;
  a.name = "gptj";
  a.title = "GPT-J";
  a.classes = {"GPTJForCausalLM", "GPTJModel"};
  a.model_types = {"gptj"};
  a.norm = NormKind::Layer;
  a.mlp = MlpKind::Plain;
  a.residual = Residual::Parallel;
  a.rope_style = RopeStyle::Interleaved;
  a.keys.hidden = {"n_embd", "hidden_size"};
  a.keys.layers = {"n_layer", "num_hidden_layers"};
  a.keys.heads = {"n_head", "num_attention_heads"};
  a.keys.intermediate = {"n_inner", "intermediate_size"};
  a.keys.max_positions = {"n_positions", "max_position_embeddings"};
  a.keys.norm_eps = {"layer_norm_epsilon"};
  a.keys.activation = "activation_function";
  a.keys.rotary_dim = {"rotary_dim"};
  a.defaults.activation = "gelu_new";
  a.defaults.intermediate_per_hidden = 4;
  const std::string l = "transformer.h.{L}.";
  a.tensors = {
      {R::Embed, "transformer.wte.weight", Dim::Vocab, Dim::Hidden},
      {R::AttnNorm, l + "ln_1.weight", Dim::Hidden, Dim::None},
      {R::AttnNormBias, l + "ln_1.bias", Dim::Hidden, Dim::None},
      {R::Q, l + "attn.q_proj.weight", Dim::QueryWidth, Dim::Hidden},
      {R::K, l + "attn.k_proj.weight", Dim::KvWidth, Dim::Hidden},
      {R::V, l + "attn.v_proj.weight", Dim::KvWidth, Dim::Hidden},
      {R::O, l + "attn.out_proj.weight", Dim::Hidden, Dim::QueryWidth},
      {R::Up, l + "mlp.fc_in.weight", Dim::Ffn, Dim::Hidden},
      {R::UpBias, l + "mlp.fc_in.bias", Dim::Ffn, Dim::None},
      {R::Down, l + "mlp.fc_out.weight", Dim::Hidden, Dim::Ffn},
      {R::DownBias, l + "mlp.fc_out.bias", Dim::Hidden, Dim::None},
      {R::FinalNorm, "transformer.ln_f.weight", Dim::Hidden, Dim::None, Need::Always, true},
      {R::FinalNormBias, "transformer.ln_f.bias", Dim::Hidden, Dim::None, Need::Always, true},
      {R::LmHead, "lm_head.weight", Dim::Vocab, Dim::Hidden, Need::IfUntied, true},
      {R::LmHeadBias, "lm_head.bias", Dim::Vocab, Dim::None, Need::IfUntied, true},
  };
  return a;
}

// BLOOM: ALiBi (slopes for any head count), a LayerNorm right after the embeddings, q, k and v
// fused head by head, BLOOM's tanh GELU; saved with and without "transformer.".
Architecture bloom() {
  Architecture a;
  a.name = "bloom";
  a.title = "BLOOM";
  a.classes = {"BloomForCausalLM", "BloomModel"};
  a.model_types = {"bloom"};
  a.norm = NormKind::Layer;
  a.mlp = MlpKind::Plain;
  a.positions = PositionKind::Alibi;
  a.qkv_layout = QkvLayout::PerHead;
  a.keys.hidden = {"hidden_size", "n_embed"};
  a.keys.layers = {"n_layer", "num_hidden_layers"};
  a.keys.heads = {"n_head", "num_attention_heads"};
  a.keys.norm_eps = {"layer_norm_epsilon"};
  a.keys.activation = "";  // BLOOM's GELU is fixed (the tanh form)
  a.defaults.activation = "gelu_new";
  a.defaults.tie_embeddings = true;
  a.defaults.intermediate_per_hidden = 4;
  a.prefixes = {"", "transformer."};
  a.tensors = {
      {R::Embed, "word_embeddings.weight", Dim::Vocab, Dim::Hidden},
      {R::EmbedNorm, "word_embeddings_layernorm.weight", Dim::Hidden, Dim::None},
      {R::EmbedNormBias, "word_embeddings_layernorm.bias", Dim::Hidden, Dim::None},
      {R::AttnNorm, "h.{L}.input_layernorm.weight", Dim::Hidden, Dim::None},
      {R::AttnNormBias, "h.{L}.input_layernorm.bias", Dim::Hidden, Dim::None},
      {R::Qkv, "h.{L}.self_attention.query_key_value.weight", Dim::FusedQkv, Dim::Hidden},
      {R::QkvBias, "h.{L}.self_attention.query_key_value.bias", Dim::FusedQkv, Dim::None},
      {R::O, "h.{L}.self_attention.dense.weight", Dim::Hidden, Dim::QueryWidth},
      {R::OBias, "h.{L}.self_attention.dense.bias", Dim::Hidden, Dim::None},
      {R::MlpNorm, "h.{L}.post_attention_layernorm.weight", Dim::Hidden, Dim::None},
      {R::MlpNormBias, "h.{L}.post_attention_layernorm.bias", Dim::Hidden, Dim::None},
      {R::Up, "h.{L}.mlp.dense_h_to_4h.weight", Dim::Ffn, Dim::Hidden},
      {R::UpBias, "h.{L}.mlp.dense_h_to_4h.bias", Dim::Ffn, Dim::None},
      {R::Down, "h.{L}.mlp.dense_4h_to_h.weight", Dim::Hidden, Dim::Ffn},
      {R::DownBias, "h.{L}.mlp.dense_4h_to_h.bias", Dim::Hidden, Dim::None},
      {R::FinalNorm, "ln_f.weight", Dim::Hidden, Dim::None, Need::Always, true},
      {R::FinalNormBias, "ln_f.bias", Dim::Hidden, Dim::None, Need::Always, true},
      {R::LmHead, "lm_head.weight", Dim::Vocab, Dim::Hidden, Need::IfUntied, true},
  };
  return a;
}

// OPT (facebook/opt-125m … 66b with do_layer_norm_before): a learned position table whose row for
// position p is p + 2, biased q, k, v and out projections, a ReLU MLP.
Architecture opt() {
  Architecture a;
  a.name = "opt";
  a.title = "OPT";
  a.classes = {"OPTForCausalLM", "OPTModel"};
  a.model_types = {"opt"};
  a.norm = NormKind::Layer;
  a.mlp = MlpKind::Plain;
  a.positions = PositionKind::Learned;
  a.position_offset = 2;
  a.keys.intermediate = {"ffn_dim"};
  a.keys.norm_eps = {"layer_norm_eps"};
  a.keys.activation = "activation_function";
  a.defaults.activation = "relu";
  a.defaults.tie_embeddings = true;
  a.defaults.qkv_bias = true;
  const std::string l = "model.decoder.layers.{L}.";
  a.tensors = {
      {R::Embed, "model.decoder.embed_tokens.weight", Dim::Vocab, Dim::Hidden},
      {R::Positions, "model.decoder.embed_positions.weight", Dim::Positions, Dim::Hidden, Need::IfLearnedPositions},
      {R::AttnNorm, l + "self_attn_layer_norm.weight", Dim::Hidden, Dim::None},
      {R::AttnNormBias, l + "self_attn_layer_norm.bias", Dim::Hidden, Dim::None},
      {R::Q, l + "self_attn.q_proj.weight", Dim::QueryWidth, Dim::Hidden},
      {R::K, l + "self_attn.k_proj.weight", Dim::KvWidth, Dim::Hidden},
      {R::V, l + "self_attn.v_proj.weight", Dim::KvWidth, Dim::Hidden},
      {R::QBias, l + "self_attn.q_proj.bias", Dim::QueryWidth, Dim::None},
      {R::KBias, l + "self_attn.k_proj.bias", Dim::KvWidth, Dim::None},
      {R::VBias, l + "self_attn.v_proj.bias", Dim::KvWidth, Dim::None},
      {R::O, l + "self_attn.out_proj.weight", Dim::Hidden, Dim::QueryWidth},
      {R::OBias, l + "self_attn.out_proj.bias", Dim::Hidden, Dim::None},
      {R::MlpNorm, l + "final_layer_norm.weight", Dim::Hidden, Dim::None},
      {R::MlpNormBias, l + "final_layer_norm.bias", Dim::Hidden, Dim::None},
      {R::Up, l + "fc1.weight", Dim::Ffn, Dim::Hidden},
      {R::UpBias, l + "fc1.bias", Dim::Ffn, Dim::None},
      {R::Down, l + "fc2.weight", Dim::Hidden, Dim::Ffn},
      {R::DownBias, l + "fc2.bias", Dim::Hidden, Dim::None},
      {R::FinalNorm, "model.decoder.final_layer_norm.weight", Dim::Hidden, Dim::None, Need::Always, true},
      {R::FinalNormBias, "model.decoder.final_layer_norm.bias", Dim::Hidden, Dim::None, Need::Always, true},
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
  a.title = "PosLab";
  a.classes = {"PosLabForCausalLM"};
  a.model_types = {"poslab"};
  const auto at = a.tensors.begin() + 1;  // after the embeddings, before the layers
  a.tensors.insert(at, {{R::Positions, "model.embed_positions.weight", Dim::Positions, Dim::Hidden, Need::IfLearnedPositions},
                        {R::RelativeBias, "model.relative_attention_bias.weight", Dim::Buckets, Dim::Heads, Need::IfT5Positions}});
  return a;
}

}  // namespace

bool is_layer_role(TensorRole r) { return r >= TensorRole::AttnNorm; }

std::string supported_families() {
  return "Llama (Llama 2, 3, 3.1, 3.2, TinyLlama), Mistral, Qwen2 / Qwen2.5, Qwen3, SmolLM3, Phi-3 / Phi-3.5 / Phi-4-mini, "
         "Gemma 2, Gemma 3, Gemma 4, OLMo 2, OLMo 3, Qwen3-MoE, Mixtral, GPT-OSS, Llama 4, DeepSeek-V2 / V3, GPT-NeoX / Pythia, GPT-J, BLOOM, OPT, GPT-2; the "
         "language models of Gemma 3 4B+, Gemma 4, Mistral 3, Qwen2.5-VL, Qwen3-VL and Llama 4 Scout / Maverick; the encoders BERT and ModernBERT; the encoder–decoders T5, Flan-T5 and mT5";
}

const TensorSlot* Architecture::slot(TensorRole role) const {
  for (const TensorSlot& s : tensors)
    if (s.role == role) return &s;
  return nullptr;
}

const std::vector<Architecture>& architectures() {
  static const std::vector<Architecture> table = [] {
    std::vector<Architecture> t = {llama(),  mistral(),  qwen2(), qwen3(), smollm3(), phi3(), gemma2(),
                                   gemma3(), gpt_neox(), gptj(),  bloom(), opt(),     gpt2(), poslab()};
    for (Architecture& a : encoder_architectures()) t.push_back(std::move(a));
    for (Architecture& a : wrapper_architectures(gemma3(), mistral(), qwen2(), qwen3(), llama())) t.push_back(std::move(a));
    for (Architecture& a : moe_architectures(qwen3(), mistral())) t.push_back(std::move(a));
    for (Architecture& a : design_architectures(llama())) t.push_back(std::move(a));
    return t;
  }();
  return table;
}

std::vector<std::string> embedding_tensor_names() {
  std::vector<std::string> names;
  for (const Architecture& a : architectures())
    if (const TensorSlot* embed = a.slot(TensorRole::Embed))
      for (const std::string& prefix : a.prefixes)
        if (std::find(names.begin(), names.end(), prefix + embed->name) == names.end()) names.push_back(prefix + embed->name);
  return names;
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
  return Error{"config.json names " + asked + ", which PosLab cannot run; supported: " + supported_families()};
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

std::string layer_tensor(const std::string& pattern, int layer, int expert) {
  std::string out = pattern;
  if (const auto at = out.find("{L}"); at != std::string::npos) out.replace(at, 3, std::to_string(layer));
  if (const auto at = out.find("{E}"); at != std::string::npos) out.replace(at, 3, std::to_string(expert));
  return out;
}

}  // namespace poslab

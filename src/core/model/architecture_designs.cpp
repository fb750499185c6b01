// The positional designs of 2025–26 as rows of the architecture table (docs/ARCHITECTURE.md):
// GPT-OSS, whose heads each learn a sink logit that takes its share of every softmax row, and
// Llama 4, whose every fourth layer has no positions at all (with a temperature on its queries
// that grows with the position) while the others rotate, normalize q and k, and attend within
// chunks of the sequence. Both are mixtures of experts with their own routing (architecture.hpp's
// MoeKind).
#include <algorithm>

#include "core/model/architecture.hpp"

namespace poslab {

namespace {

using R = TensorRole;

void insert_before(Architecture& a, TensorRole role, const std::vector<TensorSlot>& slots) {
  const auto at = std::find_if(a.tensors.begin(), a.tensors.end(), [role](const TensorSlot& s) { return s.role == role; });
  a.tensors.insert(at, slots.begin(), slots.end());
}

// A stacked expert tensor (every expert in one tensor) read as the layer's sparse MLP.
TensorSlot stacked(TensorRole role, std::string name, Dim rows, Dim cols, WeightLayout layout, bool mxfp4 = false) {
  TensorSlot s{role, std::move(name), rows, cols, Need::IfSparseLayer};
  s.stacked = true;
  s.layout = layout;
  s.mxfp4 = mxfp4;
  return s;
}

// GPT-OSS: Llama's names with biases on q, k, v and o, a learned sink per head
// (self_attn.sinks), sliding-window (layer_types; by default every other layer from the first)
// and full layers, YaRN, and a mixture in every layer: mlp.router (with a bias) over
// mlp.experts, whose gate_up_proj [experts × hidden × 2·inner] interleaves gate and up, each with
// its bias. Published files keep the experts in MXFP4 (…_blocks and …_scales, out × in); a
// dequantized save keeps them in BF16, in × out.
Architecture gpt_oss(const Architecture& llama) {
  Architecture a = llama;
  a.name = "gpt_oss";
  a.title = "GPT-OSS";
  a.classes = {"GptOssForCausalLM", "GptOssModel"};
  a.model_types = {"gpt_oss"};
  a.windows = WindowRule::Alternate;
  a.moe = MoeKind::GptOss;
  a.defaults.rope_theta = 150000.0;
  a.defaults.sliding_window = 128;
  for (TensorSlot& s : a.tensors)
    if (s.role == R::QBias || s.role == R::KBias || s.role == R::VBias || s.role == R::OBias) s.need = Need::Always;
  std::erase_if(a.tensors, [](const TensorSlot& s) { return s.role == R::Gate || s.role == R::Up || s.role == R::Down; });
  const std::string l = "model.layers.{L}.mlp.";
  insert_before(a, R::O, {{R::Sinks, "model.layers.{L}.self_attn.sinks", Dim::Heads, Dim::None}});
  insert_before(a, R::FinalNorm,
                {{R::Router, l + "router.weight", Dim::Experts, Dim::Hidden, Need::IfSparseLayer},
                 {R::RouterBias, l + "router.bias", Dim::Experts, Dim::None, Need::IfSparseLayer},
                 stacked(R::ExpertGateUp, l + "experts.gate_up_proj_blocks", Dim::FusedExpertFfn, Dim::Hidden, WeightLayout::OutIn, true),
                 stacked(R::ExpertGateUp, l + "experts.gate_up_proj", Dim::Hidden, Dim::FusedExpertFfn, WeightLayout::InOut),
                 stacked(R::ExpertGateUpBias, l + "experts.gate_up_proj_bias", Dim::FusedExpertFfn, Dim::None, WeightLayout::OutIn),
                 stacked(R::ExpertDown, l + "experts.down_proj_blocks", Dim::Hidden, Dim::ExpertFfn, WeightLayout::OutIn, true),
                 stacked(R::ExpertDown, l + "experts.down_proj", Dim::ExpertFfn, Dim::Hidden, WeightLayout::InOut),
                 stacked(R::ExpertDownBias, l + "experts.down_proj_bias", Dim::Hidden, Dim::None, WeightLayout::OutIn)});
  return a;
}

// Llama 4's text model: Llama's attention (no biases) with no_rope_layers (every fourth layer
// NoPE by default), chunked attention (attention_chunk_size) and an L2 norm of q and k after RoPE
// on the rotating layers, temperature tuning of the NoPE layers' queries, interleaved pairs, and
// feed_forward blocks: a router over stacked experts (in × out, gate then up) beside a shared
// expert on the layers moe_layers names, a dense MLP of intermediate_size_mlp on the others.
Architecture llama4_text(const Architecture& llama) {
  Architecture a = llama;
  a.name = "llama4_text";
  a.title = "Llama 4 (text)";
  a.classes = {"Llama4ForCausalLM", "Llama4TextModel"};
  a.model_types = {"llama4_text"};
  a.moe = MoeKind::Llama4;
  a.chunked_attention = true;
  a.rope_style = RopeStyle::Interleaved;
  a.keys.intermediate = {"intermediate_size_mlp"};
  a.defaults.rope_theta = 500000.0;
  a.defaults.nope_interval = 4;
  const std::string l = "model.layers.{L}.feed_forward.";
  for (TensorSlot& s : a.tensors)
    if (s.role == R::Gate || s.role == R::Up || s.role == R::Down) {
      s.need = Need::IfDenseLayer;
      s.name = l + (s.role == R::Gate ? "gate_proj.weight" : s.role == R::Up ? "up_proj.weight" : "down_proj.weight");
    }
  insert_before(a, R::FinalNorm,
                {{R::Router, l + "router.weight", Dim::Experts, Dim::Hidden, Need::IfSparseLayer},
                 stacked(R::ExpertGateUp, l + "experts.gate_up_proj", Dim::Hidden, Dim::FusedExpertFfn, WeightLayout::InOut),
                 stacked(R::ExpertDown, l + "experts.down_proj", Dim::ExpertFfn, Dim::Hidden, WeightLayout::InOut),
                 {R::SharedGate, l + "shared_expert.gate_proj.weight", Dim::SharedExpertFfn, Dim::Hidden, Need::IfSparseLayer},
                 {R::SharedUp, l + "shared_expert.up_proj.weight", Dim::SharedExpertFfn, Dim::Hidden, Need::IfSparseLayer},
                 {R::SharedDown, l + "shared_expert.down_proj.weight", Dim::Hidden, Dim::SharedExpertFfn, Need::IfSparseLayer}});
  return a;
}

// Llama 4 Scout and Maverick as published: Llama4ForConditionalGeneration, the text model's keys
// in text_config, its tensors under language_model.model.* and language_model.lm_head.*.
// configuration_llama4.py's Llama4TextConfig defaults fill what text_config leaves out.
Architecture llama4(const Architecture& text) {
  return wrapped_language_model(text, "llama4", "Llama 4 Scout / Maverick", {"Llama4ForConditionalGeneration"}, {"llama4"},
                                R"({"vocab_size": 202048, "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
    "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "hidden_act": "silu",
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000, "num_experts_per_tok": 1,
    "num_local_experts": 16, "interleave_moe_layer_step": 1, "use_qk_norm": true, "no_rope_layer_interval": 4,
    "attention_chunk_size": 8192, "attn_temperature_tuning": true, "floor_scale": 8192, "attn_scale": 0.1,
    "tie_word_embeddings": false})");
}

// DeepSeek-V3 / R1 / V3.1, Moonlight, Kimi K2 (DeepseekV3ForCausalLM) and DeepSeek-V2 / V2-Lite
// (DeepseekV2ForCausalLM): multi-head latent attention. q = q_b(norm(q_a(x))) (or q_proj(x) without
// q_lora_rank), each head's q split into a content part (qk_nope_head_dim) and a position part
// (qk_rope_head_dim); kv_a(x) gives the compressed key-value and ONE RoPE key shared by every
// head; kv_b(norm(compressed)) each head's content key and value. RoPE on the position parts
// only, pairs (2i, 2i + 1); the softmax scale (nope + rope)^−½ × YaRN's mscale². The first
// first_k_dense_replace layers dense, then a router over mlp.experts.N beside shared experts.
Architecture deepseek(const Architecture& llama, bool v3) {
  Architecture a = llama;
  a.name = v3 ? "deepseek_v3" : "deepseek_v2";
  a.title = v3 ? "DeepSeek-V3" : "DeepSeek-V2";
  a.classes = {v3 ? "DeepseekV3ForCausalLM" : "DeepseekV2ForCausalLM", v3 ? "DeepseekV3Model" : "DeepseekV2Model"};
  a.model_types = {v3 ? "deepseek_v3" : "deepseek_v2"};
  a.moe = v3 ? MoeKind::DeepSeekV3 : MoeKind::DeepSeekV2;
  a.latent_attention = true;
  a.rope_style = RopeStyle::Interleaved;
  a.keys.head_dim = {};  // transformers 5 writes head_dim = qk_rope_head_dim: not the heads' width
  a.keys.partial_rotary = {};  // the rotated slice is qk_rope_head_dim
  const std::string s = "model.layers.{L}.self_attn.", m = "model.layers.{L}.mlp.";
  std::erase_if(a.tensors, [](const TensorSlot& t) {
    return t.role == R::Q || t.role == R::K || t.role == R::V || t.role == R::QBias || t.role == R::KBias || t.role == R::VBias ||
           t.role == R::O || t.role == R::OBias;
  });
  for (TensorSlot& t : a.tensors)
    if (t.role == R::Gate || t.role == R::Up || t.role == R::Down) t.need = Need::IfDenseLayer;
  insert_before(a, R::MlpNorm,
                {{R::QA, s + "q_a_proj.weight", Dim::QLoraRank, Dim::Hidden, Need::IfQLora},
                 {R::QANorm, s + "q_a_layernorm.weight", Dim::QLoraRank, Dim::None, Need::IfQLora},
                 {R::QB, s + "q_b_proj.weight", Dim::QueryWidth, Dim::QLoraRank, Need::IfQLora},
                 {R::Q, s + "q_proj.weight", Dim::QueryWidth, Dim::Hidden, Need::IfNoQLora},
                 {R::KvA, s + "kv_a_proj_with_mqa.weight", Dim::KvAWidth, Dim::Hidden},
                 {R::KvANorm, s + "kv_a_layernorm.weight", Dim::KvLoraRank, Dim::None},
                 {R::KvB, s + "kv_b_proj.weight", Dim::KvBWidth, Dim::KvLoraRank},
                 {R::O, s + "o_proj.weight", Dim::Hidden, Dim::ValueWidth}});
  std::vector<TensorSlot> moe = {
      {R::Router, m + "gate.weight", Dim::Experts, Dim::Hidden, Need::IfSparseLayer},
      {R::ExpertGate, m + "experts.{E}.gate_proj.weight", Dim::ExpertFfn, Dim::Hidden, Need::IfSparseLayer},
      {R::ExpertUp, m + "experts.{E}.up_proj.weight", Dim::ExpertFfn, Dim::Hidden, Need::IfSparseLayer},
      {R::ExpertDown, m + "experts.{E}.down_proj.weight", Dim::Hidden, Dim::ExpertFfn, Need::IfSparseLayer},
      {R::SharedGate, m + "shared_experts.gate_proj.weight", Dim::SharedExpertFfn, Dim::Hidden, Need::IfSparseLayer},
      {R::SharedUp, m + "shared_experts.up_proj.weight", Dim::SharedExpertFfn, Dim::Hidden, Need::IfSparseLayer},
      {R::SharedDown, m + "shared_experts.down_proj.weight", Dim::Hidden, Dim::SharedExpertFfn, Need::IfSparseLayer}};
  for (std::size_t i = 1; i < 4; ++i) moe[i].per_expert = true;
  if (v3) moe.insert(moe.begin() + 1, {R::RouterCorrection, m + "gate.e_score_correction_bias", Dim::Experts, Dim::None, Need::IfSparseLayer});
  insert_before(a, R::FinalNorm, moe);
  return a;
}

// Gemma 4's text model (Gemma4ForCausalLM): Gemma 3's block with RMSNorms × w (not 1 + w), q and
// k normed per head and v normed without weight, scores unscaled (q·k, the norms set the scale);
// sliding layers (five of six by default, the last always full) with default RoPE on head_dim;
// full layers with heads of global_head_dim, proportional RoPE and, with attention_k_eq_v, their
// own key/value heads whose values are the keys' projection (no v_proj). The last
// num_kv_shared_layers layers project no keys or values. Per-layer inputs (a second embedding
// table and a projection of the embeddings, added through a gate after each layer's MLP), a
// scalar per layer, and in the mixture (26B-A4B) a router over stacked experts beside the dense MLP.
Architecture gemma4_text(const Architecture& llama) {
  Architecture a = llama;
  a.name = "gemma4_text";
  a.title = "Gemma 4";
  a.classes = {"Gemma4ForCausalLM", "Gemma4TextModel"};
  a.model_types = {"gemma4_text"};
  a.scale_embeddings = true;
  a.scaled_scores = false;
  a.windows = WindowRule::Pattern;
  a.layer_shapes = true;
  a.moe = MoeKind::Gemma4;
  a.keys.activation = "hidden_activation";
  a.keys.window_pattern = {};
  a.defaults.activation = "gelu_pytorch_tanh";
  a.defaults.tie_embeddings = true;
  a.defaults.max_positions = 131072;
  a.defaults.sliding_window = 512;
  a.defaults.rope_theta = 1000000.0;
  a.defaults.partial_rotary = 0.25;
  const std::string l = "model.layers.{L}.";
  for (TensorSlot& t : a.tensors) {
    if (t.role == R::MlpNorm) t.name = l + "pre_feedforward_layernorm.weight";
    if (t.role == R::K) t.need = Need::IfOwnKeys;
    if (t.role == R::V) t.need = Need::IfOwnValues;
    if (t.role == R::KBias || t.role == R::VBias) t.need = Need::IfPresent;  // absent where the layer reuses or shares them
  }
  insert_before(a, R::O, {{R::QNorm, l + "self_attn.q_norm.weight", Dim::HeadDim, Dim::None},
                          {R::KNorm, l + "self_attn.k_norm.weight", Dim::HeadDim, Dim::None, Need::IfOwnKeys}});
  insert_before(a, R::MlpNorm, {{R::PostAttnNorm, l + "post_attention_layernorm.weight", Dim::Hidden, Dim::None}});
  const std::vector<TensorSlot> after_mlp = {
      {R::PostMlpNorm, l + "post_feedforward_layernorm.weight", Dim::Hidden, Dim::None},
      {R::PostDenseNorm, l + "post_feedforward_layernorm_1.weight", Dim::Hidden, Dim::None, Need::IfSparseLayer},
      {R::Router, l + "router.proj.weight", Dim::Experts, Dim::Hidden, Need::IfSparseLayer},
      {R::RouterScale, l + "router.scale", Dim::Hidden, Dim::None, Need::IfSparseLayer},
      {R::RouterExpertScale, l + "router.per_expert_scale", Dim::Experts, Dim::None, Need::IfSparseLayer},
      stacked(R::ExpertGateUp, l + "experts.gate_up_proj", Dim::FusedExpertFfn, Dim::Hidden, WeightLayout::OutIn),
      stacked(R::ExpertDown, l + "experts.down_proj", Dim::Hidden, Dim::ExpertFfn, WeightLayout::OutIn),
      {R::PreExpertNorm, l + "pre_feedforward_layernorm_2.weight", Dim::Hidden, Dim::None, Need::IfSparseLayer},
      {R::PostExpertNorm, l + "post_feedforward_layernorm_2.weight", Dim::Hidden, Dim::None, Need::IfSparseLayer},
      {R::PerLayerGate, l + "per_layer_input_gate.weight", Dim::PerLayerInput, Dim::Hidden, Need::IfPerLayerInputs},
      {R::PerLayerUp, l + "per_layer_projection.weight", Dim::Hidden, Dim::PerLayerInput, Need::IfPerLayerInputs},
      {R::PostPerLayerNorm, l + "post_per_layer_input_norm.weight", Dim::Hidden, Dim::None, Need::IfPerLayerInputs},
      {R::LayerScalar, l + "layer_scalar", Dim::One, Dim::None, Need::IfPresent}};
  insert_before(a, R::FinalNorm, after_mlp);
  insert_before(a, R::AttnNorm, {{R::EmbedPerLayer, "model.embed_tokens_per_layer.weight", Dim::PerLayerVocab, Dim::PerLayerAll, Need::IfPerLayerInputs},
                                 {R::PerLayerProjection, "model.per_layer_model_projection.weight", Dim::PerLayerAll, Dim::Hidden, Need::IfPerLayerInputs},
                                 {R::PerLayerProjectionNorm, "model.per_layer_projection_norm.weight", Dim::PerLayerInput, Dim::None, Need::IfPerLayerInputs}});
  return a;
}

// Gemma 4 as published (Gemma4ForConditionalGeneration): the text model's keys in text_config over
// configuration_gemma4.py's Gemma4TextConfig defaults, its tensors under model.language_model.*.
Architecture gemma4(const Architecture& text) {
  Architecture a = wrapped_language_model(text, "gemma4", "Gemma 4 (multimodal)", {"Gemma4ForConditionalGeneration"}, {"gemma4"},
                                          R"({"vocab_size": 262144, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 30,
    "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-6, "tie_word_embeddings": true, "sliding_window": 512,
    "vocab_size_per_layer_input": 262144, "hidden_size_per_layer_input": 256, "attention_k_eq_v": false,
    "num_kv_shared_layers": 0, "enable_moe_block": false, "use_double_wide_mlp": false})");
  a.wrapper_note = "its language model; images and audio are not run";
  return a;
}

}  // namespace

std::vector<Architecture> design_architectures(const Architecture& llama) {
  const Architecture text = llama4_text(llama);
  const Architecture gemma4_model = gemma4_text(llama);
  return {gpt_oss(llama), text, llama4(text), deepseek(llama, true), deepseek(llama, false), gemma4_model, gemma4(gemma4_model)};
}

}  // namespace poslab

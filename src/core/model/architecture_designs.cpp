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
                 {R::SharedGate, l + "shared_expert.gate_proj.weight", Dim::ExpertFfn, Dim::Hidden, Need::IfSparseLayer},
                 {R::SharedUp, l + "shared_expert.up_proj.weight", Dim::ExpertFfn, Dim::Hidden, Need::IfSparseLayer},
                 {R::SharedDown, l + "shared_expert.down_proj.weight", Dim::Hidden, Dim::ExpertFfn, Need::IfSparseLayer}});
  return a;
}

// Llama 4 Scout and Maverick as published: Llama4ForConditionalGeneration, the text model's keys
// in text_config, its tensors under language_model.model.* and language_model.lm_head.*.
// configuration_llama4.py's Llama4TextConfig defaults fill what text_config leaves out.
Architecture llama4(const Architecture& text) {
  Architecture a = text;
  a.name = "llama4";
  a.title = "Llama 4 Scout / Maverick";
  a.classes = {"Llama4ForConditionalGeneration"};
  a.model_types = {"llama4"};
  a.in_text_config = true;
  a.text_defaults = R"({"vocab_size": 202048, "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
    "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "hidden_act": "silu",
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000, "num_experts_per_tok": 1,
    "num_local_experts": 16, "interleave_moe_layer_step": 1, "use_qk_norm": true, "no_rope_layer_interval": 4,
    "attention_chunk_size": 8192, "attn_temperature_tuning": true, "floor_scale": 8192, "attn_scale": 0.1,
    "tie_word_embeddings": false})";
  a.renames = {{"language_model.model.", "model."}, {"language_model.lm_head.", "lm_head."}, {"model.language_model.", "model."}};
  a.wrapper_note = "its language model; images are not run";
  return a;
}

}  // namespace

std::vector<Architecture> design_architectures(const Architecture& llama) {
  const Architecture text = llama4_text(llama);
  return {gpt_oss(llama), text, llama4(text)};
}

}  // namespace poslab

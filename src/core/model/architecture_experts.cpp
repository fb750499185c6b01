// The mixtures of experts: Qwen3-MoE and Mixtral, rows of the architecture table like the others.
// Their attention is their dense family's (Qwen3's, with q/k norms; Mistral's, with its window);
// the MLP of a sparse layer is a router and a set of experts, each a gated MLP, stored one tensor
// per expert (transformers 4) or stacked in one 3-D tensor per kind (transformers 5's
// gate_up_proj [experts × 2·inner × hidden] and down_proj [experts × hidden × inner]).
#include <algorithm>

#include "core/model/architecture.hpp"

namespace poslab {

namespace {

using R = TensorRole;

// Each kind of expert tensor, split (one per expert) and stacked (all in one), under `mlp`.
std::vector<TensorSlot> expert_slots(const std::string& mlp, const std::string& gate, const std::string& up, const std::string& down) {
  const std::string l = "model.layers.{L}." + mlp + ".";
  std::vector<TensorSlot> s = {
      {R::Router, l + "gate.weight", Dim::Experts, Dim::Hidden, Need::IfSparseLayer},
      {R::ExpertGate, l + "experts.{E}." + gate + ".weight", Dim::ExpertFfn, Dim::Hidden, Need::IfSparseLayer},
      {R::ExpertUp, l + "experts.{E}." + up + ".weight", Dim::ExpertFfn, Dim::Hidden, Need::IfSparseLayer},
      {R::ExpertDown, l + "experts.{E}." + down + ".weight", Dim::Hidden, Dim::ExpertFfn, Need::IfSparseLayer},
      {R::ExpertGateUp, l + "experts.gate_up_proj", Dim::FusedExpertFfn, Dim::Hidden, Need::IfSparseLayer},
      {R::ExpertDown, l + "experts.down_proj", Dim::Hidden, Dim::ExpertFfn, Need::IfSparseLayer},
  };
  for (std::size_t i = 1; i < s.size(); ++i) (i < 4 ? s[i].per_expert : s[i].stacked) = true;
  return s;
}

void insert_before_final_norm(Architecture& a, const std::vector<TensorSlot>& slots) {
  const auto at = std::find_if(a.tensors.begin(), a.tensors.end(), [](const TensorSlot& s) { return s.role == R::FinalNorm; });
  a.tensors.insert(at, slots.begin(), slots.end());
}

// Qwen3-MoE: Qwen3's attention; on the layers decoder_sparse_step picks (and not in
// mlp_only_layers), a softmax router over num_experts experts of moe_intermediate_size, the top
// num_experts_per_tok of them, their weights renormalized when norm_topk_prob.
Architecture qwen3_moe(const Architecture& qwen3) {
  Architecture a = qwen3;
  a.name = "qwen3_moe";
  a.title = "Qwen3-MoE";
  a.classes = {"Qwen3MoeForCausalLM", "Qwen3MoeModel"};
  a.model_types = {"qwen3_moe"};
  a.moe = MoeKind::Qwen3;
  for (TensorSlot& s : a.tensors)
    if (s.role == R::Gate || s.role == R::Up || s.role == R::Down) s.need = Need::IfDenseLayer;
  insert_before_final_norm(a, expert_slots("mlp", "gate_proj", "up_proj", "down_proj"));
  return a;
}

// Mixtral: Mistral's attention; every layer a block_sparse_moe of num_local_experts experts
// (w1 the gate, w3 the up and w2 the down projection), the top num_experts_per_tok, renormalized.
// transformers 5 names the block mlp and stacks the experts.
Architecture mixtral(const Architecture& mistral) {
  Architecture a = mistral;
  a.name = "mixtral";
  a.title = "Mixtral";
  a.classes = {"MixtralForCausalLM", "MixtralModel"};
  a.model_types = {"mixtral"};
  a.moe = MoeKind::Mixtral;
  std::erase_if(a.tensors, [](const TensorSlot& s) { return s.role == R::Gate || s.role == R::Up || s.role == R::Down; });
  insert_before_final_norm(a, expert_slots("block_sparse_moe", "w1", "w3", "w2"));
  a.renames = {{".mlp.gate.", ".block_sparse_moe.gate."}, {".mlp.experts.", ".block_sparse_moe.experts."}};
  return a;
}

}  // namespace

std::vector<Architecture> moe_architectures(const Architecture& qwen3, const Architecture& mistral) {
  return {qwen3_moe(qwen3), mixtral(mistral)};
}

}  // namespace poslab

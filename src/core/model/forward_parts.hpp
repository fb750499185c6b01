#pragma once
// The pieces of a checkpoint's forward pass (core/model/forward.cpp) that do not depend on where
// in the pass they run: the request's checks, the embeddings, the positions each stack shares
// (relative bias, window, RoPE), the projections and the MLP, and the memory estimate.
#include <optional>
#include <string>
#include <vector>

#include "core/encodings/encodings.hpp"
#include "core/model/forward.hpp"

namespace poslab {

// What a request asks of this model, checked before anything is computed: ids in the vocabulary,
// positions inside a learned table, and intervention values that have a meaning.
Status check_request(const TransformerConfig& c, const std::vector<int>& ids, const PositionIntervention& v);

// The readable text of a sentence's tokens (a character spread over byte tokens shown whole), and
// of one id.
std::vector<std::string> token_texts(const Checkpoint& model, const std::vector<int>& ids);
std::string token_text(const Checkpoint& model, int id);

// x = embed(ids) (× √hidden for Gemma), plus the learned table's rows (GPT-2, OPT with its
// offset, BERT; from the shift), BERT's segment-0 row, or the sinusoid; then the embeddings'
// norm (BLOOM, BERT, ModernBERT). `positions` false: T5's embeddings, which carry none.
Matrix embed_tokens(const Checkpoint& model, const std::vector<int>& ids, const PositionIntervention& v, bool positions = true);

// heads × (2T − 1) bias by key − query offset o (column o + T − 1): ALiBi's −m_h·(i − j) (causal),
// or T5's learned bucket table `table` (buckets × heads, shared by a stack's layers), causal or
// bidirectional; empty for the others and when positions are off.
Matrix relative_bias(const Checkpoint& model, const WeightTensor& table, const PositionIntervention& v, int T, bool bidirectional);

// A sliding window as part of the bias: −∞ for keys outside it, which both backends mask as they
// mask the future. Causal: keys `window` or more tokens back; bidirectional (ModernBERT): keys
// more than window / 2 tokens away on either side.
Matrix with_window(Matrix bias, int heads, int T, int window, bool bidirectional);

// RoPE's rotation for T tokens at positions t + shift in `layer` (with any change of base,
// scaling, pairing or rotated width); empty when the layer does not rotate or RoPE is off.
std::optional<RopeSpec> rope_for(const TransformerConfig& c, const PositionIntervention& v, int T, int layer);
void rotate(Matrix& X, int heads, int head_dim, const RopeSpec& spec);

struct QkvProjections {
  Matrix Q, K, V;
};
// q, k and v of H, fused or apart, with their biases and Qwen3's / Gemma 3's per-head norms;
// DeepSeek's latent attention, each head [position part | content part] (project_latent).
// Gemma 4: K and V empty where the layer shares another's, V the keys' projection with
// attention_k_eq_v, and every value head normed without weight (v_norm); `layer` gives its width.
QkvProjections project_qkv(const Matrix& H, const LayerWeights& w, const TransformerConfig& c, int layer);
// DeepSeek: the heads' contexts of their [v | 0] values, v_head_dim each, side by side.
Matrix latent_context(const Matrix& context, const TransformerConfig& c);

// MLP(h): gated (down(act(gate) ⊙ up); gate and up fused in Phi-3 and ModernBERT) or plain
// (down(act(up))), then Gemma's norm of the output.
Matrix mlp(const Matrix& H, const LayerWeights& w, const TransformerConfig& c, int layer);

// A layer's feed-forward half: its MLP, or a mixture's router and the experts it chooses (only
// those run, each on the tokens routed to it); `routes`, when given, gets each position's choice.
// `input`: the half's input before its norm (H), which Gemma 4's router and experts read.
Matrix feed_forward(const Matrix& H, const LayerWeights& w, const TransformerConfig& c, std::vector<ExpertChoice>* routes, int layer,
                    const Matrix* input = nullptr);

// Gemma 4's per-layer inputs, T × (layers · width): each token's row of the per-layer table × √width,
// plus the embeddings X projected and normed per layer, the sum × 2^−½.
Matrix per_layer_inputs(const Checkpoint& model, const std::vector<int>& ids, const Matrix& X);
// x += norm(up(act(gate(x)) ⊙ input)): a layer's per-layer input added after its MLP.
void add_per_layer_input(Matrix& X, const LayerWeights& w, const TransformerConfig& c, const Eigen::Ref<const Matrix>& input);

// The bytes a pass over T tokens takes at its peak.
double forward_bytes(const TransformerConfig& c, int T, const ForwardOptions& o);

// A NaN or infinity in a weight would turn every later number into NaN and every probability into
// "null": says where it first shows (the stage, the layer, the position) instead of printing it.
Status check_finite(const Matrix& X, const std::string& where);

}  // namespace poslab

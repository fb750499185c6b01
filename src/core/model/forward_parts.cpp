#include "core/model/forward_parts.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/attention/dog.hpp"
#include "core/encodings/bias.hpp"
#include "core/model/layer_ops.hpp"
#include "core/model/position_tables.hpp"

namespace poslab {

namespace {

// An embedding table's factor √width (Gemma's √hidden, Gemma 4's per-layer √width) as Hugging Face
// forms it: a tensor of the table's dtype, so a BF16 model multiplies by √width rounded to BF16.
float embedding_scale(const WeightTensor& table, int width) {
  const float s = std::sqrt(static_cast<float>(width));
  if (table.type == WeightType::F32) return s;
  return table.type == WeightType::BF16 ? round_to_bf16(s) : round_to_f16(s);
}

}  // namespace

Status check_request(const TransformerConfig& c, const std::vector<int>& ids, const PositionIntervention& v) {
  const int T = static_cast<int>(ids.size());
  if (T == 0) return Error{"no tokens to run"};
  for (int id : ids)
    if (id < 0 || id >= c.vocab) return Error{"token id " + std::to_string(id) + " is outside the vocabulary (" + std::to_string(c.vocab) + ")"};
  const bool learned = c.positions == PositionKind::Learned;
  if (learned && !v.positions_off && (v.position_shift < 0 || T + v.position_shift > c.max_positions))
    return Error{"this model has positions 0 … " + std::to_string(c.max_positions - 1) + "; " + std::to_string(T) +
                 " tokens shifted by " + std::to_string(v.position_shift) + " do not fit"};
  if (!learned && v.position_shift < 0) return Error{"a position shift must be 0 or more"};
  if (v.rope_theta && !(*v.rope_theta > 1.0 && std::isfinite(*v.rope_theta)))
    return Error{"the RoPE base must be greater than 1"};
  if (v.scaling)
    if (auto s = validate(*v.scaling); !s) return s;
  if (v.rotary_dim && (*v.rotary_dim < 2 || *v.rotary_dim > c.rotary_limit() || *v.rotary_dim % 2 != 0))
    return Error{"the rotated dimensions must be an even number from 2 to head_dim (" + std::to_string(c.rotary_limit()) + ")"};
  if (v.window && *v.window < 0) return Error{"a window must be 0 (none) or more tokens"};
  if (v.local_base && !(*v.local_base > 1.0 && std::isfinite(*v.local_base))) return Error{"the local RoPE base must be greater than 1"};
  if (v.alibi_scale && !(*v.alibi_scale >= 0.0 && std::isfinite(*v.alibi_scale))) return Error{"ALiBi's slope factor must be 0 or more"};
  return Ok{};
}

std::string token_text(const Checkpoint& model, int id) {
  return model.tokenizer() && id < model.tokenizer()->vocab_size() ? model.tokenizer()->token_text(id) : std::to_string(id);
}

std::vector<std::string> token_texts(const Checkpoint& model, const std::vector<int>& ids) {
  std::vector<std::string> texts = model.tokenizer() ? model.tokenizer()->token_texts(ids) : std::vector<std::string>(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k)
    if (!model.tokenizer() || ids[k] >= model.tokenizer()->vocab_size()) texts[k] = std::to_string(ids[k]);
  return texts;
}

Matrix embed_tokens(const Checkpoint& model, const std::vector<int>& ids, const PositionIntervention& v, bool positions) {
  const TransformerConfig& c = model.config();
  const int T = static_cast<int>(ids.size());
  Matrix X(T, c.hidden);
  for (int t = 0; t < T; ++t) read_rows(model.embed(), ids[static_cast<std::size_t>(t)], 1, X.row(t).data());
  if (c.arch->scale_embeddings) X *= embedding_scale(model.embed(), c.hidden);
  if (model.token_types().present()) {
    RowVector segment(c.hidden);
    read_rows(model.token_types(), 0, 1, segment.data());
    X.rowwise() += segment;
  }
  if (positions && !v.positions_off && c.positions == PositionKind::Learned) {
    Matrix P(T, c.hidden);
    read_rows(model.positions(), v.position_shift + c.arch->position_offset, T, P.data());
    X += P;
  }
  if (positions && !v.positions_off && c.positions == PositionKind::Sinusoidal)
    X += sinusoidal_encoding(T + v.position_shift, c.hidden, 10000.0).bottomRows(T);
  if (model.embed_norm().present()) X = normalize(X, model.embed_norm(), model.embed_norm_bias(), c.arch->norm, c.norm_eps);
  return X;
}

Matrix relative_bias(const Checkpoint& model, const WeightTensor& table, const PositionIntervention& v, int T, bool bidirectional) {
  const TransformerConfig& c = model.config();
  if (v.positions_off || (c.positions != PositionKind::Alibi && c.positions != PositionKind::T5)) return Matrix();
  Matrix B = Matrix::Zero(c.heads, 2 * T - 1);
  if (c.positions == PositionKind::Alibi) {
    const std::vector<double> by_distance = alibi_by_distance(c.heads, T);
    const double scale = v.alibi_scale.value_or(1.0);
    for (int h = 0; h < c.heads; ++h)
      for (int d = 0; d < T; ++d)
        B(h, T - 1 - d) = static_cast<float>(scale * by_distance[static_cast<std::size_t>(h) * static_cast<std::size_t>(T) + static_cast<std::size_t>(d)]);
    return B;
  }
  Matrix buckets_by_head(c.t5_buckets, c.heads);
  read_rows(table, 0, c.t5_buckets, buckets_by_head.data());
  const std::vector<int> buckets = t5_buckets_by_offset(T, bidirectional, c.t5_buckets, c.t5_max_distance);
  for (int o = 0; o < 2 * T - 1; ++o)
    for (int h = 0; h < c.heads; ++h) B(h, o) = buckets_by_head(buckets[static_cast<std::size_t>(o)], h);
  return B;
}

Matrix with_window(Matrix bias, int heads, int T, int window, bool bidirectional) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  if (window <= 0) return bias;
  if (!bidirectional) {
    if (window >= T) return bias;
    if (bias.size() == 0) bias = Matrix::Zero(heads, 2 * T - 1);
    bias.leftCols(T - window).setConstant(neg_inf);  // o = −(T−1) … −window
    return bias;
  }
  const int half = window / 2;  // |o| ≤ half is seen
  if (half >= T - 1) return bias;
  if (bias.size() == 0) bias = Matrix::Zero(heads, 2 * T - 1);
  bias.leftCols(T - 1 - half).setConstant(neg_inf);   // o = −(T−1) … −(half+1)
  bias.rightCols(T - 1 - half).setConstant(neg_inf);  // o = half+1 … T−1
  return bias;
}

Matrix per_layer_inputs(const Checkpoint& model, const std::vector<int>& ids, const Matrix& X) {
  const TransformerConfig& c = model.config();
  const int P = c.per_layer_input, T = static_cast<int>(ids.size());
  if (P <= 0) return Matrix();
  Matrix table(T, static_cast<Eigen::Index>(c.layers) * P);
  for (int t = 0; t < T; ++t) {
    const int id = ids[static_cast<std::size_t>(t)];
    if (id < c.per_layer_vocab) read_rows(model.embed_per_layer(), id, 1, table.row(t).data());
    else table.row(t).setZero();  // transformers' table has no such row either: ids past it are not Gemma 4's text tokens
  }
  table *= embedding_scale(model.embed_per_layer(), P);
  Matrix projected = linear(X, model.per_layer_projection(), WeightLayout::OutIn) * static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.hidden)));
  normalize_heads(projected, model.per_layer_projection_norm(), P, c.norm_eps, c.arch->norm_offset);
  return (projected + table) * static_cast<float>(1.0 / std::sqrt(2.0));
}

void add_per_layer_input(Matrix& X, const LayerWeights& w, const TransformerConfig& c, const Eigen::Ref<const Matrix>& input) {
  Matrix gate = linear(X, w.per_layer_gate, c.arch->layout);
  activate(gate, c.activation);
  gate.array() *= input.array();
  round_activations(gate);
  X += normalize(linear(gate, w.per_layer_up, c.arch->layout), w.post_per_layer_norm, {}, c.arch->norm, c.norm_eps, c.arch->norm_offset);
  round_activations(X);
}

namespace {

// RoPE in BF16 as Hugging Face's apply_rotary_pos_emb runs on BF16 tensors: cos and sin (× the
// attention scale) rounded to BF16, then q·cos + rotate_half(q)·sin with each product and the sum
// rounded. Every head shares the spec's angles (rope_1d with one head).
void rotate_bf16(Matrix& X, int heads, int head_dim, const RopeSpec& spec) {
  const auto r = [](float v) { return round_to_bf16(v); };
  for (Eigen::Index t = 0; t < X.rows(); ++t) {
    const RopePosition pos = spec.query_positions[static_cast<std::size_t>(t)];
    for (int i = 0; i < spec.pairs; ++i) {
      const double angle = pos.x * spec.theta_x[static_cast<std::size_t>(i)] + pos.y * spec.theta_y[static_cast<std::size_t>(i)];
      const float c = r(static_cast<float>(std::cos(angle) * spec.scale)), s = r(static_cast<float>(std::sin(angle) * spec.scale));
      const int a = spec.style == RopeStyle::Interleaved ? 2 * i : i;
      const int b = spec.style == RopeStyle::Interleaved ? 2 * i + 1 : i + spec.pairs;
      for (int h = 0; h < heads; ++h) {
        float& x = X(t, h * head_dim + a);
        float& y = X(t, h * head_dim + b);
        const float nx = r(r(x * c) + r(-y * s)), ny = r(r(y * c) + r(x * s));
        x = nx;
        y = ny;
      }
    }
  }
}

}  // namespace

void rotate(Matrix& X, int heads, int head_dim, const RopeSpec& spec) {
  if (bf16_activations()) return rotate_bf16(X, heads, head_dim, spec);
  for (int h = 0; h < heads; ++h) rotate_head(X.middleCols(h * head_dim, 2 * spec.pairs), spec, 0, spec.query_positions);
}

std::optional<RopeSpec> rope_for(const TransformerConfig& c, const PositionIntervention& v, int T, int layer) {
  const int rotary = v.rotary_dim.value_or(c.rotary_dim);
  if (c.positions != PositionKind::Rope || v.positions_off || rotary < 2 || !c.rotates(layer)) return std::nullopt;
  const RopeFrequencies f = model_rope_frequencies(c, v, T, layer);
  RopeSpec spec = rope_1d(f.thetas, 1, v.pairing.value_or(c.rope_style), T, T);
  spec.scale = f.attention_scale;
  for (int t = 0; t < T; ++t) spec.query_positions[static_cast<std::size_t>(t)].x = t + v.position_shift;
  return spec;
}

namespace {

// q, k and v from one fused output: all q then k then v, or head by head (q, k, v of head 0, …).
QkvProjections split_fused(const Matrix& QKV, const TransformerConfig& c) {
  QkvProjections p;
  if (c.arch->qkv_layout == QkvLayout::Blocks) {
    p.Q = QKV.leftCols(c.query_width());
    p.K = QKV.middleCols(c.query_width(), c.kv_width());
    p.V = QKV.rightCols(c.kv_width());
    return p;
  }
  const int d = c.head_dim;
  p.Q.resize(QKV.rows(), c.query_width());
  p.K.resize(QKV.rows(), c.kv_width());
  p.V.resize(QKV.rows(), c.kv_width());
  for (int h = 0; h < c.heads; ++h) {
    p.Q.middleCols(h * d, d) = QKV.middleCols(3 * h * d, d);
    p.K.middleCols(h * d, d) = QKV.middleCols(3 * h * d + d, d);
    p.V.middleCols(h * d, d) = QKV.middleCols(3 * h * d + 2 * d, d);
  }
  return p;
}

}  // namespace

// DeepSeek's latent attention as the attention paths take it: each head's q and k laid out
// [position part | content part], so that RoPE rotates the first qk_rope_head_dim dimensions as
// it does any partial rotary; the one RoPE key of kv_a copied into every head; each head's value
// [v | 0] to the q/k width, the zeros' context dropped after (latent_context). The low-rank
// norms have Hugging Face's default eps, 10⁻⁶, whatever rms_norm_eps says.
QkvProjections project_latent(const Matrix& H, const LayerWeights& w, const TransformerConfig& c) {
  constexpr double kLatentEps = 1e-6;
  const Eigen::Index T = H.rows();
  const int dn = c.qk_nope_dim, dr = c.rotary_dim, dh = c.head_dim, dv = c.v_head_dim;
  const Matrix q = c.q_lora_rank > 0
                       ? linear(normalize(linear(H, w.q_a, WeightLayout::OutIn), w.q_a_norm, {}, NormKind::Rms, kLatentEps), w.q_b, WeightLayout::OutIn)
                       : linear(H, w.q, WeightLayout::OutIn);
  const Matrix kv_a = linear(H, w.kv_a, WeightLayout::OutIn);  // [compressed kv | RoPE key]
  const Matrix compressed = kv_a.leftCols(c.kv_lora_rank);
  const Matrix kv = linear(normalize(compressed, w.kv_a_norm, {}, NormKind::Rms, kLatentEps), w.kv_b, WeightLayout::OutIn);
  QkvProjections p;
  p.Q.resize(T, static_cast<Eigen::Index>(c.heads) * dh);
  p.K.resize(T, p.Q.cols());
  p.V = Matrix::Zero(T, p.Q.cols());
  for (int h = 0; h < c.heads; ++h) {
    p.Q.middleCols(h * dh, dr) = q.middleCols(h * dh + dn, dr);
    p.Q.middleCols(h * dh + dr, dn) = q.middleCols(h * dh, dn);
    p.K.middleCols(h * dh, dr) = kv_a.rightCols(dr);
    p.K.middleCols(h * dh + dr, dn) = kv.middleCols(h * (dn + dv), dn);
    p.V.middleCols(h * dh, dv) = kv.middleCols(h * (dn + dv) + dn, dv);
  }
  return p;
}

Matrix latent_context(const Matrix& context, const TransformerConfig& c) {
  Matrix out(context.rows(), static_cast<Eigen::Index>(c.heads) * c.v_head_dim);
  for (int h = 0; h < c.heads; ++h) out.middleCols(h * c.v_head_dim, c.v_head_dim) = context.middleCols(h * c.head_dim, c.v_head_dim);
  return out;
}

QkvProjections project_qkv(const Matrix& H, const LayerWeights& w, const TransformerConfig& c, int layer) {
  if (c.latent()) return project_latent(H, w, c);
  const WeightLayout layout = c.arch->layout;
  QkvProjections p;
  if (w.qkv.present()) {
    Matrix QKV = linear(H, w.qkv, layout);
    add_bias(QKV, w.qkv_bias);
    p = split_fused(QKV, c);
  } else {
    // Gemma 4: a layer sharing keys and values projects neither (the attention takes them from the
    // layer it shares with); one with attention_k_eq_v takes its values from the keys' projection.
    p.Q = linear(H, w.q, layout);
    add_bias(p.Q, w.q_bias);
    if (w.k.present()) {
      p.K = linear(H, w.k, layout);
      add_bias(p.K, w.k_bias);
    }
    if (w.v.present()) {
      p.V = linear(H, w.v, layout);
      add_bias(p.V, w.v_bias);
    } else if (c.keys_as_values && w.k.present()) {
      p.V = p.K;
    }
  }
  // Per head (Qwen3, Gemma 3: a norm of head_dim), or over the whole projection (OLMo 2: a norm as
  // wide as q or k): the weight's length says which.
  if (w.q_norm.present()) normalize_heads(p.Q, w.q_norm, static_cast<int>(w.q_norm.rows * w.q_norm.cols), c.norm_eps, c.arch->norm_offset);
  if (w.k_norm.present() && p.K.size() > 0) normalize_heads(p.K, w.k_norm, static_cast<int>(w.k_norm.rows * w.k_norm.cols), c.norm_eps, c.arch->norm_offset);
  // Gemma 4's v_norm: each value head RMS-normed, without a weight.
  if (c.arch->layer_shapes && p.V.size() > 0) normalize_heads(p.V, {}, c.shape(layer).head_dim, c.norm_eps, 0.0);
  return p;
}

namespace {

// The MLP before Gemma's norm of its output.
Matrix mlp_body(const Matrix& H, const LayerWeights& w, const TransformerConfig& c, int ffn) {
  const WeightLayout layout = c.arch->layout;
  Matrix up, gate;
  if (w.gate_up.present()) {
    const Matrix both = linear(H, w.gate_up, layout);
    gate = both.leftCols(ffn);
    up = both.rightCols(ffn);
  } else {
    up = linear(H, w.up, layout);
    add_bias(up, w.up_bias);
    if (c.gated_mlp) gate = linear(H, w.gate, layout);
  }
  if (c.gated_mlp) {
    activate(gate, c.activation);
    up.array() *= gate.array();
    round_activations(up);
  } else {
    activate(up, c.activation);
  }
  Matrix down = linear(up, w.down, layout);
  add_bias(down, w.down_bias);
  return down;
}

}  // namespace

Matrix mlp(const Matrix& H, const LayerWeights& w, const TransformerConfig& c, int layer) {
  Matrix down = mlp_body(H, w, c, c.shape(layer).ffn);
  if (w.post_mlp_norm.present()) down = normalize(down, w.post_mlp_norm, {}, c.arch->norm, c.norm_eps, c.arch->norm_offset);
  return down;
}

namespace {

// GPT-OSS's expert: gate and up interleaved in gate_up (columns 2i and 2i + 1) with its bias;
// gate clamped above and up on both sides at swiglu_limit; (up + 1) ⊙ gate·σ(1.702·gate); down
// with its bias.
Matrix gpt_oss_expert(const Matrix& X, const ExpertWeights& e, const TransformerConfig& c) {
  Matrix both = linear(X, e.gate_up, e.gate_up_layout);
  add_bias(both, e.gate_up_bias);
  const float limit = static_cast<float>(c.swiglu_limit);
  Matrix h(both.rows(), c.expert_intermediate);
  for (Eigen::Index t = 0; t < both.rows(); ++t)
    for (Eigen::Index i = 0; i < h.cols(); ++i) {
      const float gate = std::min(both(t, 2 * i), limit);
      const float up = std::clamp(both(t, 2 * i + 1), -limit, limit);
      h(t, i) = (up + 1.0f) * gate / (1.0f + std::exp(-1.702f * gate));
    }
  round_activations(h);
  Matrix out = linear(h, e.down, e.down_layout);
  add_bias(out, e.down_bias);
  return out;
}

// down(act(gate·x) ⊙ up·x) with gate, up and down apart: an expert stored one tensor each, and
// the shared experts beside the routed ones (Llama 4, DeepSeek).
Matrix gated_mlp(const Matrix& X, const WeightTensor& gate_w, const WeightTensor& up_w, const WeightTensor& down_w, const TransformerConfig& c) {
  Matrix gate = linear(X, gate_w, c.arch->layout);
  activate(gate, c.activation);
  Matrix up = linear(X, up_w, c.arch->layout);
  up.array() *= gate.array();
  round_activations(up);
  return linear(up, down_w, c.arch->layout);
}

// One expert's gated MLP: down(act(gate·x) ⊙ up·x), gate and up apart or stacked (gate first).
Matrix expert_mlp(const Matrix& X, const ExpertWeights& e, const TransformerConfig& c) {
  if (c.arch->moe == MoeKind::GptOss) return gpt_oss_expert(X, e, c);
  if (!e.gate_up.present()) return gated_mlp(X, e.gate, e.up, e.down, c);
  const Matrix both = linear(X, e.gate_up, e.gate_up_layout);
  Matrix gate = both.leftCols(c.expert_intermediate);
  Matrix up = both.rightCols(c.expert_intermediate);
  activate(gate, c.activation);
  up.array() *= gate.array();
  return linear(up, e.down, e.down_layout);
}

// The k experts with the largest values of `v` (the lower index first among equals, as
// torch.topk's order is not relied on).
std::vector<int> top_experts(const std::vector<double>& v, int k) {
  std::vector<int> order(v.size());
  for (std::size_t e = 0; e < order.size(); ++e) order[e] = static_cast<int>(e);
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&v](int a, int b) {
    return v[static_cast<std::size_t>(a)] > v[static_cast<std::size_t>(b)] || (v[static_cast<std::size_t>(a)] == v[static_cast<std::size_t>(b)] && a < b);
  });
  order.resize(static_cast<std::size_t>(k));
  return order;
}

// The router's choice for one token, in double as HF's float routing. Qwen3-MoE and Mixtral:
// softmax over every expert, the k largest, renormalized to sum 1 where the family does
// (DeepSeek-V2: never, and × routed_scaling_factor). GPT-OSS:
// the k largest logits, then the softmax of those k. Llama 4: the k largest, each through a sigmoid.
ExpertChoice route(const Eigen::Ref<const RowVector>& logits, const TransformerConfig& c) {
  std::vector<double> v(static_cast<std::size_t>(logits.size()));
  for (Eigen::Index e = 0; e < logits.size(); ++e) v[static_cast<std::size_t>(e)] = logits(e);
  const std::vector<int> chosen_ids = top_experts(v, c.experts_per_token);  // softmax keeps the order of the logits
  ExpertChoice chosen;
  if (c.arch->moe == MoeKind::Llama4) {
    for (int e : chosen_ids) chosen.emplace_back(e, 1.0 / (1.0 + std::exp(-v[static_cast<std::size_t>(e)])));
    return chosen;
  }
  const bool over_chosen = c.arch->moe == MoeKind::GptOss;
  const double top = v[static_cast<std::size_t>(chosen_ids.front())];
  double sum = 0.0;
  for (std::size_t e = 0; e < v.size(); ++e) sum += std::exp(v[e] - top);
  double kept = 0.0;
  for (int e : chosen_ids) {
    const double w = std::exp(v[static_cast<std::size_t>(e)] - top);
    chosen.emplace_back(e, w);
    kept += w;
  }
  const double total = over_chosen || c.norm_topk ? kept : sum;
  for (auto& [e, w] : chosen) w = w / total * c.routed_scaling;  // DeepSeek-V2's routed_scaling_factor; 1 elsewhere
  return chosen;
}

// DeepSeek-V3's router for one token: sigmoid scores; the correction bias added for choosing
// only; the experts in groups of E / n_group, each group worth the sum of its two best corrected
// scores, the topk_group best groups kept (the others' scores 0, as HF's masked_fill); the top k of
// what is left; weights the uncorrected scores, renormalized when norm_topk_prob, ×
// routed_scaling_factor. (V2's softmax routing is route()'s, × routed_scaling_factor.)
ExpertChoice route_deepseek_v3(const Eigen::Ref<const RowVector>& logits, const RowVector& correction, const TransformerConfig& c) {
  const std::size_t E = static_cast<std::size_t>(logits.size());
  std::vector<double> score(E), choose(E);
  for (std::size_t e = 0; e < E; ++e) {
    score[e] = 1.0 / (1.0 + std::exp(-static_cast<double>(logits(static_cast<Eigen::Index>(e)))));
    choose[e] = score[e] + (correction.size() > 0 ? correction(static_cast<Eigen::Index>(e)) : 0.0f);
  }
  const std::size_t per_group = E / static_cast<std::size_t>(c.expert_groups);
  std::vector<double> group_score(static_cast<std::size_t>(c.expert_groups));
  for (std::size_t g = 0; g < group_score.size(); ++g) {
    std::vector<double> members(choose.begin() + static_cast<std::ptrdiff_t>(g * per_group), choose.begin() + static_cast<std::ptrdiff_t>((g + 1) * per_group));
    std::partial_sort(members.begin(), members.begin() + std::min<std::size_t>(2, members.size()), members.end(), std::greater<>());
    group_score[g] = members[0] + (members.size() > 1 ? members[1] : 0.0);
  }
  std::vector<std::uint8_t> kept(group_score.size(), 0);
  for (int g : top_experts(group_score, c.groups_kept)) kept[static_cast<std::size_t>(g)] = 1;
  for (std::size_t e = 0; e < E; ++e)
    if (!kept[e / per_group]) choose[e] = 0.0;
  ExpertChoice chosen;
  double kept_sum = 0.0;
  for (int e : top_experts(choose, c.experts_per_token)) {
    chosen.emplace_back(e, score[static_cast<std::size_t>(e)]);
    kept_sum += score[static_cast<std::size_t>(e)];
  }
  for (auto& [e, w] : chosen) w = (c.norm_topk ? w / (kept_sum + 1e-20) : w) * c.routed_scaling;
  // Chosen by the corrected scores, listed as every router's choice is: most weight first.
  std::stable_sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return chosen;
}

// A sparse layer: each expert runs once, on the rows of H routed to it, and adds its weighted
// output; the router reads `routed` (H itself but in Gemma 4). Llama 4 weighs the expert's input
// instead of its output, and adds its shared expert's MLP; Gemma 4 × each expert's own scale.
Matrix mixture(const Matrix& H, const Matrix& routed, const LayerWeights& w, const TransformerConfig& c, std::vector<ExpertChoice>* routes) {
  Matrix logits = linear(routed, w.router, c.arch->layout);  // T × experts
  add_bias(logits, w.router_bias);
  const RowVector expert_scale = w.router_expert_scale.present() ? read_vector(w.router_expert_scale) : RowVector();
  const bool v3 = c.arch->moe == MoeKind::DeepSeekV3;
  const RowVector correction = w.router_correction.present() ? read_vector(w.router_correction) : RowVector();
  std::vector<ExpertChoice> chosen(static_cast<std::size_t>(H.rows()));
  std::vector<std::vector<std::pair<Eigen::Index, float>>> rows(static_cast<std::size_t>(c.experts));
  for (Eigen::Index t = 0; t < H.rows(); ++t) {
    chosen[static_cast<std::size_t>(t)] = v3 ? route_deepseek_v3(logits.row(t), correction, c) : route(logits.row(t), c);
    if (expert_scale.size() > 0)
      for (auto& [e, weight] : chosen[static_cast<std::size_t>(t)]) weight *= expert_scale(e);
    for (const auto& [e, weight] : chosen[static_cast<std::size_t>(t)]) rows[static_cast<std::size_t>(e)].emplace_back(t, static_cast<float>(weight));
  }
  const bool scale_input = c.arch->moe == MoeKind::Llama4;
  Matrix out = Matrix::Zero(H.rows(), H.cols());
  for (int e = 0; e < c.experts; ++e) {
    const auto& mine = rows[static_cast<std::size_t>(e)];
    if (mine.empty()) continue;
    Matrix X(static_cast<Eigen::Index>(mine.size()), H.cols());
    for (std::size_t i = 0; i < mine.size(); ++i) X.row(static_cast<Eigen::Index>(i)) = H.row(mine[i].first) * (scale_input ? mine[i].second : 1.0f);
    const Matrix Y = expert_mlp(X, w.experts[static_cast<std::size_t>(e)], c);
    for (std::size_t i = 0; i < mine.size(); ++i) out.row(mine[i].first) += (scale_input ? 1.0f : mine[i].second) * Y.row(static_cast<Eigen::Index>(i));
  }
  if (w.shared_gate.present()) out += gated_mlp(H, w.shared_gate, w.shared_up, w.shared_down, c);
  round_activations(out);
  if (routes) *routes = std::move(chosen);
  return out;
}

}  // namespace

namespace {

// Gemma 4's mixture beside its dense MLP, both from the half's input X (the residual): the dense
// MLP of the normed X, post-normed; the experts on X normed by their own pre-norm, routed by X
// RMS-normed without weight × the router's scale × hidden^−½, post-normed; their sum normed again.
Matrix dense_beside_experts(const Matrix& X, const Matrix& H, const LayerWeights& w, const TransformerConfig& c, int layer,
                            std::vector<ExpertChoice>* routes) {
  const auto norm = [&c](const Matrix& M, const WeightTensor& weight) { return normalize(M, weight, {}, c.arch->norm, c.norm_eps, c.arch->norm_offset); };
  Matrix routed = X;
  normalize_heads(routed, {}, c.hidden, c.norm_eps, 0.0);
  routed.array().rowwise() *= (read_vector(w.router_scale) * static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.hidden)))).array();
  const Matrix experts = mixture(norm(X, w.pre_expert_norm), routed, w, c, routes);
  return norm(norm(mlp_body(H, w, c, c.shape(layer).ffn), w.post_dense_norm) + norm(experts, w.post_expert_norm), w.post_mlp_norm);
}

}  // namespace

Matrix feed_forward(const Matrix& H, const LayerWeights& w, const TransformerConfig& c, std::vector<ExpertChoice>* routes, int layer,
                    const Matrix* input) {
  if (!w.router.present()) return mlp(H, w, c, layer);
  if (c.arch->moe == MoeKind::Gemma4 && input) return dense_beside_experts(*input, H, w, c, layer, routes);
  return mixture(H, H, w, c, routes);
}

// What stays at the peak, in floats: the residual stream and a layer's intermediates; the kept
// layers' T × T matrices (scores and weights of every head, and DeepSeek's two parts of the
// scores); while a layer attends, what its path holds for the moment: every head's matrices where
// they are summarized or checked against the CPU, otherwise the blocked path's one block of
// scores per core (attention_context_cpu); the logits, a 64 MB chunk at a time unless kept.
double forward_bytes(const TransformerConfig& c, int T, const ForwardOptions& o) {
  const TransformerConfig::LayerShape widest = c.shape(c.layers - 1);  // Gemma 4: the full layers' heads, the double-wide MLP
  const double t = T, heads = c.heads, hidden = c.hidden;
  const double projections = std::max(c.query_width() + 2 * c.kv_width(), widest.query_width(c.heads) + 2 * widest.kv_width());
  // The stream, its normed copy and the attention's output (hidden wide); then the larger of the
  // attention's Q, K, V and context, and the MLP's gate, up and product; Gemma 4's per-layer inputs.
  const double activations = t * (3.0 * hidden + std::max(projections + c.query_width(), 3.0 * widest.ffn) +
                                  static_cast<double>(c.per_layer_input) * c.layers);
  const double kept = o.all_layers ? c.layers + 2.0 * c.decoder_layers
                                   : static_cast<double>(o.keep_layers.size()) * (o.all_stacks && c.encoder_decoder() ? 3.0 : 1.0);
  const double square = heads * t * t;  // one T × T matrix per head
  const double kept_squares = kept * square * ((o.keep_scores ? 2.0 : 1.0) + (c.latent() ? 2.0 : 0.0));
  // A layer summarized but not kept forms its weights alone (in place of its scores).
  const double whole_layer = o.check_against_cpu ? 2.0 * square : o.summarize_all_layers ? square : 0.0;
  const double blocks = static_cast<double>(std::max(1, omp_get_max_threads())) * 256.0 * t;
  const double logits = o.keep_logits ? t * c.vocab : std::min(t * c.vocab, (64 << 20) / 4.0);
  return 4.0 * (activations + kept_squares + std::max(whole_layer, blocks) + logits);
}

Status check_finite(const Matrix& X, const std::string& where) {
  // The largest |x|, NaN if any is NaN: a vectorised pass. allFinite() stops at the first bad value
  // and so runs one value at a time, which was 9 % of a 1,024-token forward's time on the logits.
  if (X.size() == 0 || std::isfinite(X.cwiseAbs().maxCoeff<Eigen::PropagateNaN>())) return Ok{};
  Eigen::Index t = 0;
  while (t + 1 < X.rows() && X.row(t).allFinite()) ++t;
  return Error{"the model's numbers are not finite (NaN or infinity) after " + where + ", first at position " +
               std::to_string(t) + ": a weight of the model holds NaN or infinity, or its values overflow"};
}

}  // namespace poslab

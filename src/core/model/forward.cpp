#include "core/model/forward.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <unordered_map>
#include <vector>
#include <limits>
#include <optional>
#include <sstream>

#include "core/attention/dog.hpp"
#include "core/memory.hpp"
#include "core/encodings/bias.hpp"
#include "core/encodings/encodings.hpp"
#include "core/model/head_stats.hpp"
#include "core/model/layer_ops.hpp"
#include "core/model/position_tables.hpp"

namespace poslab {

namespace {

void rotate(Matrix& X, int heads, int head_dim, const RopeSpec& spec) {
  for (int h = 0; h < heads; ++h) rotate_head(X.middleCols(h * head_dim, 2 * spec.pairs), spec, 0, spec.query_positions);
}

// Logits of the rows of H (positions × hidden): positions × V, the LM head converted a block at a time.
Matrix logits_of(const Matrix& H, const Checkpoint& model) {
  Matrix L = linear(H, model.lm_head(), WeightLayout::OutIn);
  add_bias(L, model.lm_head_bias());
  soft_cap(L, model.config().final_softcap);
  return L;
}

std::string token_text(const Checkpoint& model, int id) {
  return model.tokenizer() && id < model.tokenizer()->vocab_size() ? model.tokenizer()->token_text(id) : std::to_string(id);
}

// The readable text of a sentence's tokens (a character spread over byte tokens shown whole).
std::vector<std::string> token_texts(const Checkpoint& model, const std::vector<int>& ids) {
  std::vector<std::string> texts = model.tokenizer() ? model.tokenizer()->token_texts(ids) : std::vector<std::string>(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k)
    if (!model.tokenizer() || ids[k] >= model.tokenizer()->vocab_size()) texts[k] = std::to_string(ids[k]);
  return texts;
}

bool cancelled(const ForwardOptions& o) { return o.cancel && o.cancel->load(); }

// heads × (2T − 1) bias by key − query offset o (column o + T − 1), causal: ALiBi's −m_h·(i − j)
// (its slopes scaled by the intervention), or T5's learned bucket table (buckets × heads, shared
// by the layers); empty for the others.
Matrix relative_bias(const Checkpoint& model, const PositionIntervention& v, int T) {
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
  Matrix table(c.t5_buckets, c.heads);
  read_rows(model.relative_bias(), 0, c.t5_buckets, table.data());
  const std::vector<int> buckets = t5_buckets_by_offset(T, false, c.t5_buckets, c.t5_max_distance);
  for (int o = 0; o < 2 * T - 1; ++o)
    for (int h = 0; h < c.heads; ++h) B(h, o) = table(buckets[static_cast<std::size_t>(o)], h);
  return B;
}

// A sliding window as part of the bias: −∞ for keys `window` or more tokens back (o ≤ −window),
// which both backends mask as they mask the future.
Matrix with_window(Matrix bias, int heads, int T, int window) {
  if (window <= 0 || window >= T) return bias;
  if (bias.size() == 0) bias = Matrix::Zero(heads, 2 * T - 1);
  bias.leftCols(T - window).setConstant(-std::numeric_limits<float>::infinity());  // o = −(T−1) … −window
  return bias;
}

}  // namespace

std::string describe(const PositionIntervention& v) {
  std::ostringstream s;
  const auto sep = [&s]() -> std::ostringstream& {
    if (s.tellp() > 0) s << " · ";
    return s;
  };
  if (v.positions_off) sep() << "positions off";
  if (v.rope_theta) sep() << "RoPE base " << *v.rope_theta;
  if (v.scaling) {
    sep() << "scaling " << to_string(v.scaling->type);
    if (v.scaling->type != RopeScalingType::None) s << " ×" << v.scaling->factor;
  }
  if (v.pairing) sep() << (*v.pairing == RopeStyle::Interleaved ? "interleaved" : "rotate-half") << " pairs (wrong for this checkpoint)";
  if (v.position_shift != 0) sep() << "positions shifted by " << v.position_shift;
  if (v.rotary_dim) sep() << *v.rotary_dim << " rotated dimensions per head";
  if (v.window) sep() << (*v.window == 0 ? std::string("no sliding window") : "window " + std::to_string(*v.window));
  if (v.local_base) sep() << "local base " << *v.local_base;
  if (v.rope_factors) sep() << "LongRoPE " << (*v.rope_factors == LongRopeSet::Long ? "long" : "short") << " factors";
  if (v.alibi_scale) sep() << "ALiBi slopes ×" << *v.alibi_scale;
  return s.tellp() > 0 ? s.str() : "unchanged";
}

const LayerAttention* ForwardResult::layer(int l) const {
  for (const LayerAttention& a : layers)
    if (a.layer == l) return &a;
  return nullptr;
}

RopeFrequencies model_rope_frequencies(const TransformerConfig& c, const PositionIntervention& v, int tokens, int layer) {
  const bool local = layer >= 0 && c.rope_local_theta && c.is_local(layer);
  const double theta = local ? v.local_base.value_or(*c.rope_local_theta) : v.rope_theta.value_or(c.rope_theta);
  RopeScaling scaling = local ? RopeScaling{} : v.scaling.value_or(c.scaling);
  if (v.rope_factors) scaling.longrope_set = *v.rope_factors;
  return rotary_angles(v.rotary_dim.value_or(c.rotary_dim), theta, scaling, tokens + std::max(0, v.position_shift), c.rope_fraction);
}

int layer_window(const TransformerConfig& c, const PositionIntervention& v, int layer) {
  if (!c.is_local(layer)) return 0;
  return v.window.value_or(c.sliding_window);
}

Result<std::vector<int>> model_tokens(const Checkpoint& model, const std::string& sentence, std::vector<std::string>* unknown) {
  if (!model.tokenizer()) return Error{model.folder().string() + ": no tokenizer.json, so sentences cannot be split"};
  auto ids = model.tokenizer()->encode(sentence, unknown);
  if (!ids) return Error{ids.error()};
  if (ids->empty()) return Error{"the sentence has no tokens"};
  return *ids;
}

std::vector<int> shuffle_tokens(const Checkpoint& model, const std::vector<int>& ids, std::uint64_t seed) {
  const bool keep_first = !ids.empty() && model.tokenizer() && model.tokenizer()->is_special(ids[0]);
  const int first = keep_first ? 1 : 0;
  const auto order = shuffled_order(static_cast<int>(ids.size()) - first, seed);
  std::vector<int> out(ids.begin(), ids.begin() + first);
  for (int k : order) out.push_back(ids[static_cast<std::size_t>(k + first)]);
  return out;
}

namespace {

// What a request asks of this model, checked before anything is computed: ids in the vocabulary,
// positions inside a learned table, and intervention values that have a meaning.
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
  if (v.rotary_dim && (*v.rotary_dim < 2 || *v.rotary_dim > c.head_dim || *v.rotary_dim % 2 != 0))
    return Error{"the rotated dimensions must be an even number from 2 to head_dim (" + std::to_string(c.head_dim) + ")"};
  if (v.window && *v.window < 0) return Error{"a window must be 0 (none) or more tokens"};
  if (v.local_base && !(*v.local_base > 1.0 && std::isfinite(*v.local_base))) return Error{"the local RoPE base must be greater than 1"};
  if (v.alibi_scale && !(*v.alibi_scale >= 0.0 && std::isfinite(*v.alibi_scale))) return Error{"ALiBi's slope factor must be 0 or more"};
  return Ok{};
}

// The embeddings' factor √hidden (Gemma) as Hugging Face forms it: a tensor of the weights' dtype,
// so a BF16 model multiplies by √hidden rounded to BF16.
float embedding_scale(const Checkpoint& model) {
  const float s = std::sqrt(static_cast<float>(model.config().hidden));
  if (model.embed().type == WeightType::F32) return s;
  const float rounded = model.embed().type == WeightType::BF16 ? round_to_bf16(s) : round_to_f16(s);
  return rounded;
}

// x = embed(ids) (× √hidden for Gemma, then BLOOM's LayerNorm), plus the learned table's rows
// (GPT-2, OPT with its offset; from the shift) or the sinusoid.
Matrix embed_tokens(const Checkpoint& model, const std::vector<int>& ids, const PositionIntervention& v) {
  const TransformerConfig& c = model.config();
  const int T = static_cast<int>(ids.size());
  Matrix X(T, c.hidden);
  for (int t = 0; t < T; ++t) read_rows(model.embed(), ids[static_cast<std::size_t>(t)], 1, X.row(t).data());
  if (c.arch->scale_embeddings) X *= embedding_scale(model);
  if (model.embed_norm().present()) X = normalize(X, model.embed_norm(), model.embed_norm_bias(), c.arch->norm, c.norm_eps);
  if (v.positions_off) return X;
  if (c.positions == PositionKind::Learned) {
    Matrix P(T, c.hidden);
    read_rows(model.positions(), v.position_shift + c.arch->position_offset, T, P.data());
    X += P;
  }
  if (c.positions == PositionKind::Sinusoidal) X += sinusoidal_encoding(T + v.position_shift, c.hidden, 10000.0).bottomRows(T);
  return X;
}

// RoPE's rotation for T tokens at positions t + shift in `layer` (with any change of base,
// scaling, pairing or rotated width); empty when the layer does not rotate or RoPE is off.
std::optional<RopeSpec> rope_for(const TransformerConfig& c, const PositionIntervention& v, int T, int layer) {
  const int rotary = v.rotary_dim.value_or(c.rotary_dim);
  if (c.positions != PositionKind::Rope || v.positions_off || rotary < 2 || !c.rotates(layer)) return std::nullopt;
  const RopeFrequencies f = model_rope_frequencies(c, v, T, layer);
  RopeSpec spec = rope_1d(f.thetas, 1, v.pairing.value_or(c.rope_style), T, T);
  spec.scale = f.attention_scale;
  for (int t = 0; t < T; ++t) spec.query_positions[static_cast<std::size_t>(t)].x = t + v.position_shift;
  return spec;
}

struct Projections {
  Matrix Q, K, V;
};

// q, k and v from one fused output: all q then k then v, or head by head (q, k, v of head 0, …).
Projections split_fused(const Matrix& QKV, const TransformerConfig& c) {
  Projections p;
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

Projections project_qkv(const Matrix& H, const LayerWeights& w, const TransformerConfig& c) {
  const WeightLayout layout = c.arch->layout;
  Projections p;
  if (w.qkv.present()) {
    Matrix QKV = linear(H, w.qkv, layout);
    add_bias(QKV, w.qkv_bias);
    p = split_fused(QKV, c);
  } else {
    p.Q = linear(H, w.q, layout);
    p.K = linear(H, w.k, layout);
    p.V = linear(H, w.v, layout);
    add_bias(p.Q, w.q_bias);
    add_bias(p.K, w.k_bias);
    add_bias(p.V, w.v_bias);
  }
  if (w.q_norm.present()) normalize_heads(p.Q, w.q_norm, c.head_dim, c.norm_eps, c.arch->norm_offset);
  if (w.k_norm.present()) normalize_heads(p.K, w.k_norm, c.head_dim, c.norm_eps, c.arch->norm_offset);
  return p;
}

// MLP(h): gated (down(act(gate) ⊙ up); gate and up fused in Phi-3) or plain (proj(act(fc))), then
// Gemma's norm of the output.
Matrix mlp(const Matrix& H, const LayerWeights& w, const TransformerConfig& c) {
  const WeightLayout layout = c.arch->layout;
  Matrix up, gate;
  if (w.gate_up.present()) {
    const Matrix both = linear(H, w.gate_up, layout);
    gate = both.leftCols(c.intermediate);
    up = both.rightCols(c.intermediate);
  } else {
    up = linear(H, w.up, layout);
    add_bias(up, w.up_bias);
    if (c.arch->mlp == MlpKind::Gated) gate = linear(H, w.gate, layout);
  }
  if (c.arch->mlp == MlpKind::Gated) {
    activate(gate, c.activation);
    up.array() *= gate.array();
  } else {
    activate(up, c.activation);
  }
  Matrix down = linear(up, w.down, layout);
  add_bias(down, w.down_bias);
  if (w.post_mlp_norm.present()) down = normalize(down, w.post_mlp_norm, {}, c.arch->norm, c.norm_eps, c.arch->norm_offset);
  return down;
}

// The bytes a pass over T tokens takes at its peak: the residual stream and a layer's projections
// and MLP, each head's T × T scores and weights (twice more for every kept layer), the logits'
// chunks and the kept logits.
double forward_bytes(const TransformerConfig& c, int T, const ForwardOptions& o) {
  const double t = T, width = std::max({c.hidden, c.intermediate, c.query_width() + 2 * c.kv_width()});
  const double kept = o.all_layers ? c.layers : static_cast<double>(o.keep_layers.size());
  const double squares = static_cast<double>(c.heads) * t * t * (2.0 + 2.0 * kept);
  const double logits = (o.keep_logits ? t * c.vocab : 0.0) + (64 << 20) / 4.0;
  return 4.0 * (8.0 * t * width + squares + logits);
}

// A NaN or infinity in a weight would turn every later number into NaN and every probability into
// "null": say where it first shows (the stage, the layer, the position) instead of printing it.
Status check_finite(const Matrix& X, const std::string& where) {
  if (X.allFinite()) return Ok{};
  Eigen::Index t = 0;
  while (t + 1 < X.rows() && X.row(t).allFinite()) ++t;
  return Error{"the model's numbers are not finite (NaN or infinity) after " + where + ", first at position " +
               std::to_string(t) + ": a weight of the model holds NaN or infinity, or its values overflow"};
}

// One forward pass over a checkpoint: the result it fills, the backend in use (the CPU once the
// GPU fails) and what the layers share: the relative bias and RoPE's rotation, each for the
// global layers and for the local (windowed) ones.
class ForwardPass {
 public:
  ForwardPass(const Checkpoint& model, const ForwardOptions& options) : model_(model), options_(options) {}
  Result<ForwardResult> run(const std::vector<int>& ids);

 private:
  void prepare_positions(int T);
  Status run_layer(int l, Matrix& X);
  Result<Matrix> attend(int l, Projections p, bool keep);
  Status read_out(const Matrix& X);

  const Checkpoint& model_;
  const ForwardOptions& options_;
  ForwardResult result_;
  CpuBackend cpu_;
  AttentionBackend* backend_ = nullptr;
  Matrix bias_global_, bias_local_;
  std::optional<RopeSpec> rope_global_, rope_local_;
};

}  // namespace

void ForwardPass::prepare_positions(int T) {
  const TransformerConfig& c = model_.config();
  const PositionIntervention& v = options_.intervention;
  bias_global_ = relative_bias(model_, v, T);
  int local = -1;  // a local layer, if any: they all share one window
  for (int l = 0; l < c.layers && local < 0; ++l)
    if (c.is_local(l)) local = l;
  if (local >= 0) bias_local_ = with_window(bias_global_, c.heads, T, layer_window(c, v, local));
  // The rotation differs only by base, so one layer of each kind gives it (a NoPE layer has none).
  for (int l = 0; l < c.layers; ++l)
    if (c.rotates(l)) (c.is_local(l) ? rope_local_ : rope_global_) = rope_for(c, v, T, l);
}

// Attention of layer l from its projections: RoPE as the layer has it, Gemma's query scale, the
// layer's bias and window, on the backend (the CPU when it fails); the heads' context.
Result<Matrix> ForwardPass::attend(int l, Projections p, bool keep) {
  const TransformerConfig& c = model_.config();
  LayerAttention layer;
  layer.layer = l;
  layer.window = layer_window(c, options_.intervention, l);
  if (keep && c.positions == PositionKind::Rope && c.rotary_dim >= 2) layer.frequency_usage = frequency_usage(p.Q, p.K, c);
  const std::optional<RopeSpec>& rope = c.is_local(l) ? rope_local_ : rope_global_;
  if (rope && c.rotates(l)) {
    rotate(p.Q, c.heads, c.head_dim, *rope);
    rotate(p.K, c.kv_heads, c.head_dim, *rope);
    layer.rotated = true;
  }
  if (c.query_scale > 0.0) p.Q *= static_cast<float>(c.query_scale * std::sqrt(static_cast<double>(c.head_dim)));
  AttentionInput in;
  in.Q = std::move(p.Q);
  in.K = repeat_kv(p.K, c.kv_heads, c.heads, c.head_dim);
  in.V = repeat_kv(p.V, c.kv_heads, c.heads, c.head_dim);
  in.heads = c.heads;
  in.causal = true;
  in.softcap = static_cast<float>(c.attn_softcap);
  in.key_valid.assign(static_cast<std::size_t>(in.Q.rows()), 1);
  in.relative_bias = c.is_local(l) ? bias_local_ : bias_global_;
  auto attended = backend_->attend(in, keep);
  if (!attended && backend_ != &cpu_) {
    result_.backend = cpu_.name() + " (" + backend_->name() + " failed: " + attended.error() + ")";
    backend_ = &cpu_;
    attended = cpu_.attend(in, keep);
  }
  if (!attended) return Error{attended.error()};
  if (keep) {
    if (options_.check_against_cpu && backend_ != &cpu_)
      result_.max_diff_vs_cpu = std::max(result_.max_diff_vs_cpu.value_or(0.0), max_abs_difference(*attended, attention_cpu(in)));
    for (const Matrix& A : attended->weights) layer.heads.push_back(summarize(A, result_.ids));
    layer.scores = std::move(attended->scores);
    layer.weights = std::move(attended->weights);
    result_.layers.push_back(std::move(layer));
  }
  return std::move(attended->context);
}

// One layer: x += attention(norm(x)) (Gemma: normed again), then x += MLP(norm(x)); or, in
// parallel (GPT-NeoX, GPT-J), x += attention(n₁(x)) + MLP(n₂(x)), GPT-J's MLP reading n₁(x).
Status ForwardPass::run_layer(int l, Matrix& X) {
  const TransformerConfig& c = model_.config();
  const LayerWeights& w = model_.layers()[static_cast<std::size_t>(l)];
  const bool keep = options_.all_layers || std::find(options_.keep_layers.begin(), options_.keep_layers.end(), l) != options_.keep_layers.end();
  const double offset = c.arch->norm_offset;
  const Matrix H = normalize(X, w.attn_norm, w.attn_norm_bias, c.arch->norm, c.norm_eps, offset);
  auto context = attend(l, project_qkv(H, w, c), keep);
  if (!context) return Error{context.error()};
  Matrix out = linear(*context, w.o, c.arch->layout);
  add_bias(out, w.o_bias);
  if (w.post_attn_norm.present()) out = normalize(out, w.post_attn_norm, {}, c.arch->norm, c.norm_eps, offset);
  if (auto s = check_finite(out, "layer " + std::to_string(l) + "'s attention"); !s) return s;
  if (c.parallel_residual) {
    const Matrix H2 = w.mlp_norm.present() ? normalize(X, w.mlp_norm, w.mlp_norm_bias, c.arch->norm, c.norm_eps, offset) : H;
    X += out + mlp(H2, w, c);
  } else {
    X += out;
    X += mlp(normalize(X, w.mlp_norm, w.mlp_norm_bias, c.arch->norm, c.norm_eps, offset), w, c);
  }
  return check_finite(X, "layer " + std::to_string(l) + "'s MLP");
}

// Logits in chunks of positions, so that T × V floats are never all held (unless asked): the top
// k of each position and the mean cross-entropy of each next token.
Status ForwardPass::read_out(const Matrix& X) {
  const TransformerConfig& c = model_.config();
  const std::vector<int>& ids = result_.ids;
  const Eigen::Index T = X.rows();
  const Matrix H = normalize(X, model_.final_norm(), model_.final_norm_bias(), c.arch->norm, c.norm_eps, c.arch->norm_offset);
  if (auto s = check_finite(H, "the final norm"); !s) return s;
  const Eigen::Index chunk = std::max<Eigen::Index>(1, (64 << 20) / (4 * static_cast<Eigen::Index>(c.vocab)));
  if (options_.keep_logits) result_.logits.resize(T, c.vocab);
  double loss_sum = 0.0;
  const int k = std::clamp(options_.top_k, 0, c.vocab);
  std::vector<int> order(static_cast<std::size_t>(c.vocab));
  for (Eigen::Index first = 0; first < T; first += chunk) {
    const Eigen::Index n = std::min<Eigen::Index>(chunk, T - first);
    const Matrix L = logits_of(H.middleRows(first, n), model_);
    if (auto s = check_finite(L, "the output head"); !s) return s;
    if (options_.keep_logits) result_.logits.middleRows(first, n) = L;
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::Index t = first + i;
      const auto row = L.row(i);
      const double m = row.maxCoeff();
      const double lse = m + std::log((row.cast<double>().array() - m).exp().sum());
      const bool counts = options_.scored.empty() || options_.scored[static_cast<std::size_t>(t)];
      if (t + 1 < T && counts) {
        loss_sum += lse - row(ids[static_cast<std::size_t>(t + 1)]);
        ++result_.scored;
      }
      for (int j = 0; j < c.vocab; ++j) order[static_cast<std::size_t>(j)] = j;
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&row](int a, int b) { return row(a) > row(b); });
      std::vector<TokenProbability> top;
      for (int j = 0; j < k; ++j) {
        const int id = order[static_cast<std::size_t>(j)];
        top.push_back({id, token_text(model_, id), std::exp(row(id) - lse)});
      }
      result_.top.push_back(std::move(top));
    }
  }
  result_.loss = result_.scored > 0 ? loss_sum / result_.scored : std::numeric_limits<double>::quiet_NaN();
  result_.scored_description = options_.scored.empty() ? "" : options_.scored_description;
  result_.perplexity = std::exp(result_.loss);
  return Ok{};
}

Result<ForwardResult> ForwardPass::run(const std::vector<int>& ids) {
  const auto start = std::chrono::steady_clock::now();
  const TransformerConfig& c = model_.config();
  const PositionIntervention& v = options_.intervention;
  if (auto s = check_request(c, ids, v); !s) return Error{s.error()};
  if (!options_.scored.empty() && options_.scored.size() != ids.size())
    return Error{"the scored predictions do not match the tokens"};
  if (auto s = check_memory(forward_bytes(c, static_cast<int>(ids.size()), options_), "the forward pass over " + std::to_string(ids.size()) + " tokens",
                            "use a shorter sentence");
      !s)
    return Error{s.error()};
  const int T = static_cast<int>(ids.size());
  result_.ids = ids;
  result_.tokens = token_texts(model_, ids);
  backend_ = options_.backend ? options_.backend : &cpu_;
  result_.backend = backend_->name();
  Matrix X = embed_tokens(model_, ids, v);
  if (auto s = check_finite(X, "the embeddings"); !s) return Error{s.error()};
  prepare_positions(T);
  // Soft-capped scores (Gemma 2) are the CPU path's alone.
  if (c.attn_softcap > 0.0 && backend_ != &cpu_) {
    backend_ = &cpu_;
    result_.backend = cpu_.name() + " (Gemma 2's soft-capped scores run on the CPU)";
  }
  for (int l = 0; l < c.layers; ++l) {
    if (cancelled(options_)) return Error{"cancelled"};
    if (auto s = run_layer(l, X); !s) return Error{s.error()};
    if (options_.progress) options_.progress(static_cast<double>(l + 1) / (c.layers + 1));
  }
  if (cancelled(options_)) return Error{"cancelled"};
  if (auto s = read_out(X); !s) return Error{s.error()};
  if (options_.progress) options_.progress(1.0);
  result_.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return std::move(result_);
}

Result<ForwardResult> run_forward(const Checkpoint& model, const std::vector<int>& ids, const ForwardOptions& options) {
  ForwardPass pass(model, options);
  return pass.run(ids);
}

}  // namespace poslab

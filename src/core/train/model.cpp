#include "core/train/model.hpp"

#include <cmath>
#include <utility>

#include "core/encodings/encodings.hpp"
#include "core/model/position_tables.hpp"
#include "core/train/ops.hpp"

namespace poslab {

template <class S>
PositionTables<S> make_position_tables(const TrainModelConfig& c, int T, const RopeScaling& scaling) {
  PositionTables<S> t;
  t.T = T;
  switch (c.positions) {
    case PositionKind::Sinusoidal:
      t.sinusoid = sinusoidal_encoding(T, c.width, 10000.0).template cast<S>();
      break;
    case PositionKind::Rope: {
      const RopeFrequencies f = rotary_angles(c.rotary_dim(), c.rope_theta, scaling, T, c.rope_fraction);
      const auto pairs = static_cast<Eigen::Index>(f.thetas.size());
      t.cos.resize(T, pairs);
      t.sin.resize(T, pairs);
      for (int p = 0; p < T; ++p)
        for (Eigen::Index i = 0; i < pairs; ++i) {
          const double angle = p * f.thetas[static_cast<std::size_t>(i)];  // in double, rounded once
          t.cos(p, i) = static_cast<S>(std::cos(angle) * f.attention_scale);
          t.sin(p, i) = static_cast<S>(std::sin(angle) * f.attention_scale);
        }
      break;
    }
    case PositionKind::Alibi: {
      const std::vector<double> by_distance = alibi_by_distance(c.heads, T);
      t.alibi = Eigen::Map<const MatrixOf<double>>(by_distance.data(), c.heads, T).template cast<S>();
      break;
    }
    case PositionKind::T5: {
      // Training's bias is indexed by distance δ = i − j, the offset −δ.
      const std::vector<int> by_offset = t5_buckets_by_offset(T, false, c.t5_buckets, c.t5_max_distance);
      t.bucket.resize(static_cast<std::size_t>(T));
      for (int d = 0; d < T; ++d) t.bucket[static_cast<std::size_t>(d)] = by_offset[static_cast<std::size_t>(T - 1 - d)];
      break;
    }
    case PositionKind::None:
    case PositionKind::Learned:
      break;
  }
  return t;
}

template <class S>
Activations<S>::Activations(const TrainModelConfig& c, int n, int tokens, bool backward)
    : Activations(c, n, tokens, backward, true) {}

template <class S>
double Activations<S>::bytes(const TrainModelConfig& c, int n, int tokens, bool backward) {
  return Activations(c, n, tokens, backward, false).elements_ * static_cast<double>(sizeof(S));
}

template <class S>
Activations<S>::Activations(const TrainModelConfig& c, int n, int tokens, bool backward, bool allocate) : sequences(n), T(tokens) {
  const Eigen::Index N = static_cast<Eigen::Index>(n) * T, d = c.width, F = c.mlp(), V = c.vocab, h = c.heads;
  const bool bias_used = c.positions == PositionKind::Alibi || c.positions == PositionKind::T5;
  std::vector<std::pair<Tensor<S>*, std::pair<Eigen::Index, Eigen::Index>>> plan;
  const auto want = [&plan](Tensor<S>& t, Eigen::Index rows, Eigen::Index cols) { plan.push_back({&t, {rows, cols}}); };
  layers.resize(static_cast<std::size_t>(c.layers));
  for (LayerActivations<S>& L : layers) {
    want(L.x, N, d);
    want(L.xn1, N, d);
    want(L.rstd1, N, 1);
    want(L.q, N, d);
    want(L.k, N, d);
    want(L.v, N, d);
    want(L.att, n * h * T, T);
    want(L.ctx, N, d);
    want(L.x_mid, N, d);
    want(L.xn2, N, d);
    want(L.rstd2, N, 1);
    want(L.gate, N, F);
    want(L.up, N, F);
    want(L.mlp, N, F);
  }
  if (bias_used) want(bias, h, T);
  want(x_out, N, d);
  want(xf, N, d);
  want(rstdf, N, 1);
  want(logits, N, V);
  want(probs, N, V);
  if (backward) {
    for (Tensor<S>* t : {&dx, &dxn, &dq, &dk, &dv, &dctx}) want(*t, N, d);
    for (Tensor<S>* t : {&dgate, &dup, &dmlp}) want(*t, N, F);
    want(dlogits, N, V);
    want(dS, T, T);
    if (c.positions == PositionKind::T5) want(dbias, h, T);
  }
  // Every tensor starts on a 64-byte boundary, like the allocation (see CacheAligned).
  const auto padded = [](Eigen::Index count) { return (count + 15) / 16 * 16; };
  Eigen::Index total = 0;
  for (const auto& [t, shape] : plan) {
    total += padded(shape.first * shape.second);
    elements_ += static_cast<double>(padded(shape.first * shape.second));
  }
  if (!allocate) return;
  memory_.assign(static_cast<std::size_t>(total), S(0));
  Eigen::Index offset = 0;
  for (const auto& [t, shape] : plan) {
    *t = Tensor<S>{memory_.data() + offset, shape.first, shape.second};
    offset += padded(shape.first * shape.second);
  }
}

template <class S>
double model_forward(const Params<S>& p, const PositionTables<S>& pos, const int* ids, const int* targets,
                     const std::uint8_t* mask, Activations<S>& a) {
  using namespace ops;
  const TrainModelConfig& c = p.config();
  const int T = a.T;
  const auto eps = static_cast<S>(c.norm_eps);
  Tensor<S>& x0 = a.layers.front().x;
  if (c.positions == PositionKind::Learned) embedding_forward<S>(x0.m(), ids, p.embed.m(), p.positions.m().topRows(T), T);
  else if (c.positions == PositionKind::Sinusoidal) embedding_forward<S>(x0.m(), ids, p.embed.m(), pos.sinusoid, T);
  else embedding_forward<S>(x0.m(), ids, p.embed.m(), MatrixOf<S>(), T);
  // The bias by offset i − j: ALiBi's fixed slopes, or T5's table gathered through the buckets.
  if (c.positions == PositionKind::Alibi) a.bias.m() = pos.alibi;
  if (c.positions == PositionKind::T5)
    for (Eigen::Index h = 0; h < c.heads; ++h)
      for (int o = 0; o < T; ++o) a.bias.m()(h, o) = p.relative_bias.m()(pos.bucket[static_cast<std::size_t>(o)], h);
  const bool rope = c.positions == PositionKind::Rope;

  for (std::size_t l = 0; l < a.layers.size(); ++l) {
    LayerActivations<S>& L = a.layers[l];
    const LayerParams<S>& w = p.layers[l];
    rmsnorm_forward<S>(L.xn1.m(), L.rstd1.m(), L.x.m(), w.attn_norm.m(), eps);
    linear_forward<S>(L.q.m(), L.xn1.m(), w.q.m());
    linear_forward<S>(L.k.m(), L.xn1.m(), w.k.m());
    linear_forward<S>(L.v.m(), L.xn1.m(), w.v.m());
    if (rope) {
      rope_forward<S>(L.q.m(), pos.cos, pos.sin, T, c.heads);
      rope_forward<S>(L.k.m(), pos.cos, pos.sin, T, c.heads);
    }
    attention_forward<S>(L.ctx.m(), L.att.m(), L.q.m(), L.k.m(), L.v.m(), a.bias.m(), T, c.heads);
    linear_forward<S>(L.x_mid.m(), L.ctx.m(), w.o.m());
    L.x_mid.m() += L.x.m();
    rmsnorm_forward<S>(L.xn2.m(), L.rstd2.m(), L.x_mid.m(), w.mlp_norm.m(), eps);
    linear_forward<S>(L.gate.m(), L.xn2.m(), w.gate.m());
    linear_forward<S>(L.up.m(), L.xn2.m(), w.up.m());
    swiglu_forward<S>(L.mlp.m(), L.gate.m(), L.up.m());
    Tensor<S>& next = l + 1 < a.layers.size() ? a.layers[l + 1].x : a.x_out;
    linear_forward<S>(next.m(), L.mlp.m(), w.down.m());
    next.m() += L.x_mid.m();
  }
  rmsnorm_forward<S>(a.xf.m(), a.rstdf.m(), a.x_out.m(), p.final_norm.m(), eps);
  linear_forward<S>(a.logits.m(), a.xf.m(), p.embed.m());
  return cross_entropy_forward<S>(a.probs.m(), a.logits.m(), targets, mask);
}

template <class S>
void model_backward(const Params<S>& p, const PositionTables<S>& pos, const int* ids, const int* targets,
                    const std::uint8_t* mask, S loss_scale, Activations<S>& a, Params<S>& g) {
  using namespace ops;
  const TrainModelConfig& c = p.config();
  const int T = a.T;
  const bool rope = c.positions == PositionKind::Rope, t5 = c.positions == PositionKind::T5;
  if (t5) a.dbias.m().setZero();

  cross_entropy_backward<S>(a.dlogits.m(), a.probs.m(), targets, mask, loss_scale);
  linear_backward<S>(a.dxn.m(), g.embed.m(), a.dlogits.m(), a.xf.m(), p.embed.m(), false);  // the tied head
  a.dx.m().setZero();
  rmsnorm_backward<S>(a.dx.m(), g.final_norm.m(), a.dxn.m(), a.x_out.m(), a.rstdf.m(), p.final_norm.m());

  // dx holds the gradient of the residual stream leaving the layer; each step adds the branch's.
  for (std::size_t l = a.layers.size(); l-- > 0;) {
    const LayerActivations<S>& L = a.layers[l];
    const LayerParams<S>& w = p.layers[l];
    LayerParams<S>& gw = g.layers[l];
    linear_backward<S>(a.dmlp.m(), gw.down.m(), a.dx.m(), L.mlp.m(), w.down.m(), false);
    swiglu_backward<S>(a.dgate.m(), a.dup.m(), a.dmlp.m(), L.gate.m(), L.up.m());
    linear_backward<S>(a.dxn.m(), gw.gate.m(), a.dgate.m(), L.xn2.m(), w.gate.m(), false);
    linear_backward<S>(a.dxn.m(), gw.up.m(), a.dup.m(), L.xn2.m(), w.up.m(), true);
    rmsnorm_backward<S>(a.dx.m(), gw.mlp_norm.m(), a.dxn.m(), L.x_mid.m(), L.rstd2.m(), w.mlp_norm.m());

    linear_backward<S>(a.dctx.m(), gw.o.m(), a.dx.m(), L.ctx.m(), w.o.m(), false);
    attention_backward<S>(a.dq.m(), a.dk.m(), a.dv.m(), a.dbias.m(), a.dS.m(), a.dctx.m(), L.q.m(), L.k.m(), L.v.m(),
                          L.att.m(), T, c.heads);
    if (rope) {
      rope_backward<S>(a.dq.m(), pos.cos, pos.sin, T, c.heads);
      rope_backward<S>(a.dk.m(), pos.cos, pos.sin, T, c.heads);
    }
    linear_backward<S>(a.dxn.m(), gw.q.m(), a.dq.m(), L.xn1.m(), w.q.m(), false);
    linear_backward<S>(a.dxn.m(), gw.k.m(), a.dk.m(), L.xn1.m(), w.k.m(), true);
    linear_backward<S>(a.dxn.m(), gw.v.m(), a.dv.m(), L.xn1.m(), w.v.m(), true);
    rmsnorm_backward<S>(a.dx.m(), gw.attn_norm.m(), a.dxn.m(), L.x.m(), L.rstd1.m(), w.attn_norm.m());
  }
  if (c.positions == PositionKind::Learned) embedding_backward<S>(g.embed.m(), g.positions.m().topRows(T), a.dx.m(), ids, T);
  else embedding_backward<S>(g.embed.m(), MapOf<S>(nullptr, 0, 0), a.dx.m(), ids, T);
  if (t5)  // every layer's bias came from the one table
    for (Eigen::Index h = 0; h < c.heads; ++h)
      for (int o = 0; o < T; ++o) g.relative_bias.m()(pos.bucket[static_cast<std::size_t>(o)], h) += a.dbias.m()(h, o);
}

template <class S>
GradientEngine<S>::GradientEngine(const TrainModelConfig& config, int shards)
    : config_(config), shards_(static_cast<std::size_t>(std::max(1, shards))) {}

template <class S>
void GradientEngine<S>::prepare(const Batch& batch, bool backward) {
  if (!tables_ || tables_->T != batch.tokens)
    tables_ = std::make_unique<PositionTables<S>>(make_position_tables<S>(config_, batch.tokens));
  const auto K = static_cast<int>(shards_.size());
  for (int k = 0; k < K; ++k) {
    Shard& s = shards_[static_cast<std::size_t>(k)];
    s.first = batch.sequences * k / K;
    s.count = batch.sequences * (k + 1) / K - s.first;
    const bool fits = s.acts && s.acts->sequences == s.count && s.acts->T == batch.tokens &&
                      (!backward || s.acts->dx.data != nullptr);
    if (!fits && s.count > 0) s.acts = std::make_unique<Activations<S>>(config_, s.count, batch.tokens, backward);
    if (backward && !s.grad) s.grad = std::make_unique<Params<S>>(config_);
  }
}

template <class S>
double GradientEngine<S>::run(const Params<S>& p, const Batch& batch, Params<S>* grad) {
  prepare(batch, grad != nullptr);
  const int counted = batch.counted();
  const auto scale = static_cast<S>(1.0 / std::max(counted, 1));
  const auto K = static_cast<int>(shards_.size());
  const PositionTables<S>& pos = *tables_;
#pragma omp parallel for schedule(static, 1)
  for (int k = 0; k < K; ++k) {
    Shard& s = shards_[static_cast<std::size_t>(k)];
    s.loss = 0.0;
    if (grad) std::fill(s.grad->values().begin(), s.grad->values().end(), S(0));
    if (s.count == 0) continue;
    const std::size_t at = static_cast<std::size_t>(s.first) * static_cast<std::size_t>(batch.tokens);
    s.loss = model_forward(p, pos, &batch.ids[at], &batch.targets[at], &batch.mask[at], *s.acts);
    if (grad) model_backward(p, pos, &batch.ids[at], &batch.targets[at], &batch.mask[at], scale, *s.acts, *s.grad);
  }
  double loss = 0.0;
  for (const Shard& s : shards_) loss += s.loss;
  if (grad) {
    // Each element sums the shards in shard order, whichever core does it.
    const std::span<S> out = grad->values();
    const auto size = static_cast<std::ptrdiff_t>(out.size());
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < size; ++i) {
      S sum = S(0);
      for (const Shard& s : shards_) sum += s.grad->values()[static_cast<std::size_t>(i)];
      out[static_cast<std::size_t>(i)] = sum;
    }
  }
  return loss / std::max(counted, 1);
}

template <class S>
double GradientEngine<S>::loss_and_gradient(const Params<S>& p, const Batch& batch, Params<S>& grad) {
  return run(p, batch, &grad);
}

template <class S>
double GradientEngine<S>::loss(const Params<S>& p, const Batch& batch) {
  return run(p, batch, nullptr);
}

#define POSLAB_TRAIN_MODEL(S)                                                                                     \
  template PositionTables<S> make_position_tables<S>(const TrainModelConfig&, int, const RopeScaling&);           \
  template class Activations<S>;                                                                                  \
  template double model_forward<S>(const Params<S>&, const PositionTables<S>&, const int*, const int*,           \
                                   const std::uint8_t*, Activations<S>&);                                         \
  template void model_backward<S>(const Params<S>&, const PositionTables<S>&, const int*, const int*,            \
                                  const std::uint8_t*, S, Activations<S>&, Params<S>&);                           \
  template class GradientEngine<S>;
POSLAB_TRAIN_MODEL(float)
POSLAB_TRAIN_MODEL(double)
#undef POSLAB_TRAIN_MODEL

}  // namespace poslab

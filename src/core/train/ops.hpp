#pragma once
// The training model's operations, each a *_forward / *_backward pair (llm.c's shape). A backward
// takes the forward's inputs and the gradient of its output; it adds into parameter gradients
// (+=) and writes the gradient of its input (=) unless it says it adds. Shapes, with N = n·T rows
// (n sequences of T tokens), d the width, h heads of d_h, F the MLP width, V the vocabulary:
//   embedding      ids N                → X N × d          (E V × d, positions T × d added per sequence)
//   linear         X N × in, W out × in → Y N × out        (Y = X·Wᵀ, Hugging Face's Linear)
//   rmsnorm        X N × d, w 1 × d     → Y N × d, rstd N × 1
//   rope           X N × d in place     (cos, sin T × pairs, rotate-half pairs per head)
//   attention      q, k, v N × d        → ctx N × d, att (n·h·T) × T (bias h × T by offset i − j)
//   swiglu         G, U N × F           → M N × F          (M = silu(G) ⊙ U)
//   cross_entropy  logits N × V         → probs N × V, loss (targets, mask N)
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "base/gemm.hpp"
#include "core/train/parameters.hpp"

namespace poslab::ops {

// The products of the operations below, for any row-major blocks: on the CPU's own instruction set
// through base/gemm.hpp in float (training), Eigen's own product in double (the gradient checks).
// `add`: C += the product.
template <class S, class C, class A, class B>
void product_abt(C&& c, const A& a, const B& b, bool add = false) {  // C = A·Bᵀ
  if constexpr (std::is_same_v<S, float>) {
    gemm_abt(static_cast<int>(c.rows()), static_cast<int>(c.cols()), static_cast<int>(a.cols()), a.data(), static_cast<int>(a.outerStride()),
             b.data(), static_cast<int>(b.outerStride()), c.data(), static_cast<int>(c.outerStride()), add ? Into::Add : Into::Set);
  } else if (add) {
    c.noalias() += a * b.transpose();
  } else {
    c.noalias() = a * b.transpose();
  }
}

template <class S, class C, class A, class B>
void product_ab(C&& c, const A& a, const B& b, bool add = false) {  // C = A·B
  if constexpr (std::is_same_v<S, float>) {
    gemm_ab(static_cast<int>(c.rows()), static_cast<int>(c.cols()), static_cast<int>(a.cols()), a.data(), static_cast<int>(a.outerStride()),
            b.data(), static_cast<int>(b.outerStride()), c.data(), static_cast<int>(c.outerStride()), add ? Into::Add : Into::Set);
  } else if (add) {
    c.noalias() += a * b;
  } else {
    c.noalias() = a * b;
  }
}

template <class S, class C, class A, class B>
void product_atb(C&& c, const A& a, const B& b, bool add = false) {  // C = Aᵀ·B
  if constexpr (std::is_same_v<S, float>) {
    gemm_atb(static_cast<int>(c.rows()), static_cast<int>(c.cols()), static_cast<int>(a.rows()), a.data(), static_cast<int>(a.outerStride()),
             b.data(), static_cast<int>(b.outerStride()), c.data(), static_cast<int>(c.outerStride()), add ? Into::Add : Into::Set);
  } else if (add) {
    c.noalias() += a.transpose() * b;
  } else {
    c.noalias() = a.transpose() * b;
  }
}

template <class S>
using Out = Eigen::Ref<MatrixOf<S>>;
template <class S>
using In = const Eigen::Ref<const MatrixOf<S>>&;

// X row r = E[ids[r]] + P[r mod T] (P may be empty: no additive positions).
template <class S>
void embedding_forward(Out<S> X, const int* ids, In<S> E, In<S> P, int T) {
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    X.row(r) = E.row(ids[r]);
    if (P.size() > 0) X.row(r) += P.row(r % T);
  }
}

// dE[ids[r]] += dX row r; dP[r mod T] += dX row r when the positions are learned (dP not empty).
template <class S>
void embedding_backward(Out<S> dE, Out<S> dP, In<S> dX, const int* ids, int T) {
  for (Eigen::Index r = 0; r < dX.rows(); ++r) {
    dE.row(ids[r]) += dX.row(r);
    if (dP.size() > 0) dP.row(r % T) += dX.row(r);
  }
}

template <class S>
void linear_forward(Out<S> Y, In<S> X, In<S> W) {
  product_abt<S>(Y, X, W);
}

// dW += dYᵀ·X; dX = dY·W, or dX += dY·W with `add`.
template <class S>
void linear_backward(Out<S> dX, Out<S> dW, In<S> dY, In<S> X, In<S> W, bool add) {
  product_atb<S>(dW, dY, X, true);
  product_ab<S>(dX, dY, W, add);
}

// Y = x / √(mean(x²) + ε) ⊙ w per row; rstd keeps 1/√(mean(x²) + ε).
template <class S>
void rmsnorm_forward(Out<S> Y, Out<S> rstd, In<S> X, In<S> w, S eps) {
  const S inv_d = S(1) / static_cast<S>(X.cols());
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    const S inv = S(1) / std::sqrt(X.row(r).squaredNorm() * inv_d + eps);
    rstd(r, 0) = inv;
    Y.row(r) = (X.row(r) * inv).cwiseProduct(w);
  }
}

// With x̂ = x·rstd and g = dY ⊙ w: dw += Σ_rows dY ⊙ x̂; dX += rstd·(g − x̂·mean(g ⊙ x̂)). Adds into dX
// (the residual stream's gradient already there).
template <class S>
void rmsnorm_backward(Out<S> dX, Out<S> dw, In<S> dY, In<S> X, In<S> rstd, In<S> w) {
  const S inv_d = S(1) / static_cast<S>(X.cols());
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    const S inv = rstd(r, 0);
    const auto xhat = X.row(r) * inv;
    const MatrixOf<S> g = dY.row(r).cwiseProduct(w);
    dw += dY.row(r).cwiseProduct(xhat);
    const S mean = g.row(0).dot(xhat) * inv_d;
    dX.row(r) += inv * (g - xhat * mean);
  }
}

// Rotates pairs (x_i, x_{i+p}) of each head's first 2p dimensions (Hugging Face's rotate-half,
// p = cos.cols()) of row r by position r mod T: (a, b) → (a·c − b·s, a·s + b·c). The tables carry
// any attention scale (YaRN) already multiplied in.
template <class S>
void rope_forward(Out<S> X, In<S> cos, In<S> sin, int T, int heads) {
  const Eigen::Index pairs = cos.cols(), dh = X.cols() / heads;
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    const Eigen::Index t = r % T;
    for (Eigen::Index h = 0; h < heads; ++h) {
      S* x = X.row(r).data() + h * dh;
      for (Eigen::Index i = 0; i < pairs; ++i) {
        const S a = x[i], b = x[i + pairs], c = cos(t, i), s = sin(t, i);
        x[i] = a * c - b * s;
        x[i + pairs] = a * s + b * c;
      }
    }
  }
}

// The transposed rotation, in place on the gradient: (da, db) → (da·c + db·s, −da·s + db·c).
template <class S>
void rope_backward(Out<S> dX, In<S> cos, In<S> sin, int T, int heads) {
  const Eigen::Index pairs = cos.cols(), dh = dX.cols() / heads;
  for (Eigen::Index r = 0; r < dX.rows(); ++r) {
    const Eigen::Index t = r % T;
    for (Eigen::Index h = 0; h < heads; ++h) {
      S* g = dX.row(r).data() + h * dh;
      for (Eigen::Index i = 0; i < pairs; ++i) {
        const S a = g[i], b = g[i + pairs], c = cos(t, i), s = sin(t, i);
        g[i] = a * c + b * s;
        g[i + pairs] = -a * s + b * c;
      }
    }
  }
}

// Causal attention per sequence and head: A = softmax(q·kᵀ/√d_h + B) over keys j ≤ i, with
// B_ij = bias(head, i − j) (ALiBi's slopes or T5's buckets; an empty bias adds nothing), and
// ctx = A·v. att keeps A, the block of rows (s·h + head)·T for sequence s; above the diagonal it
// holds exact zeros.
template <class S>
void attention_forward(Out<S> ctx, Out<S> att, In<S> q, In<S> k, In<S> v, In<S> bias, int T, int heads) {
  const Eigen::Index d = q.cols(), dh = d / heads, n = q.rows() / T;
  const S scale = S(1) / std::sqrt(static_cast<S>(dh));
  for (Eigen::Index s = 0; s < n; ++s) {
    for (Eigen::Index h = 0; h < heads; ++h) {
      auto A = att.block((s * heads + h) * T, 0, T, T);
      product_abt<S>(A, q.block(s * T, h * dh, T, dh), k.block(s * T, h * dh, T, dh));
      for (Eigen::Index i = 0; i < T; ++i) {
        auto row = A.row(i).head(i + 1);
        row *= scale;
        if (bias.size() > 0) row += bias.row(h).head(i + 1).reverse();  // column j gets bias(h, i − j)
        const S top = row.maxCoeff();
        row = (row.array() - top).exp().matrix();
        row /= row.sum();
        A.row(i).tail(T - i - 1).setZero();
      }
      ctx.block(s * T, h * dh, T, dh).noalias() = A.template triangularView<Eigen::Lower>() * v.block(s * T, h * dh, T, dh);
    }
  }
}

// dv = Aᵀ·dctx; dA = dctx·vᵀ; dS = A ⊙ (dA − Σ_j A ⊙ dA) (the softmax's Jacobian); dbias(h, i − j)
// += dS_ij (when dbias is not empty); dq = dS·k/√d_h; dk = dSᵀ·q/√d_h. dS is T × T scratch.
template <class S>
void attention_backward(Out<S> dq, Out<S> dk, Out<S> dv, Out<S> dbias, Out<S> dS, In<S> dctx, In<S> q, In<S> k,
                        In<S> v, In<S> att, int T, int heads) {
  const Eigen::Index d = q.cols(), dh = d / heads, n = q.rows() / T;
  const S scale = S(1) / std::sqrt(static_cast<S>(dh));
  for (Eigen::Index s = 0; s < n; ++s) {
    for (Eigen::Index h = 0; h < heads; ++h) {
      const auto A = att.block((s * heads + h) * T, 0, T, T);
      const auto dO = dctx.block(s * T, h * dh, T, dh);
      product_atb<S>(dv.block(s * T, h * dh, T, dh), A, dO);
      product_abt<S>(dS, dO, v.block(s * T, h * dh, T, dh));
      for (Eigen::Index i = 0; i < T; ++i) {
        const auto a = A.row(i).head(i + 1);
        auto g = dS.row(i).head(i + 1);
        const S dot = a.dot(g);
        g = (a.array() * (g.array() - dot)).matrix();
        dS.row(i).tail(T - i - 1).setZero();
        if (dbias.size() > 0) dbias.row(h).head(i + 1) += g.reverse();
      }
      dS *= scale;
      product_ab<S>(dq.block(s * T, h * dh, T, dh), dS, k.block(s * T, h * dh, T, dh));
      product_atb<S>(dk.block(s * T, h * dh, T, dh), dS, q.block(s * T, h * dh, T, dh));
    }
  }
}

// M = silu(G) ⊙ U with silu(g) = g·σ(g).
template <class S>
void swiglu_forward(Out<S> M, In<S> G, In<S> U) {
  M = (G.array() / (S(1) + (-G.array()).exp()) * U.array()).matrix();
}

// dU = dM ⊙ silu(G); dG = dM ⊙ U ⊙ σ(G)·(1 + G·(1 − σ(G))).
template <class S>
void swiglu_backward(Out<S> dG, Out<S> dU, In<S> dM, In<S> G, In<S> U) {
  const auto sigma = (S(1) / (S(1) + (-G.array()).exp())).eval();
  dU = (dM.array() * G.array() * sigma).matrix();
  dG = (dM.array() * U.array() * sigma * (S(1) + G.array() * (S(1) - sigma))).matrix();
}

// probs = softmax of each row of logits; returns Σ over counted rows of −log probs[target].
template <class S>
double cross_entropy_forward(Out<S> probs, In<S> logits, const int* targets, const std::uint8_t* mask) {
  double loss = 0.0;
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    const S top = logits.row(r).maxCoeff();
    probs.row(r) = (logits.row(r).array() - top).exp().matrix();
    const S sum = probs.row(r).sum();
    probs.row(r) /= sum;
    if (mask[r]) loss += static_cast<double>(std::log(sum) + top - logits(r, targets[r]));
  }
  return loss;
}

// dlogits = scale·(probs − onehot(target)) on counted rows, 0 elsewhere (scale = 1 / counted
// predictions of the whole batch, so that the loss is their mean).
template <class S>
void cross_entropy_backward(Out<S> dlogits, In<S> probs, const int* targets, const std::uint8_t* mask, S scale) {
  for (Eigen::Index r = 0; r < probs.rows(); ++r) {
    if (!mask[r]) {
      dlogits.row(r).setZero();
      continue;
    }
    dlogits.row(r) = probs.row(r) * scale;
    dlogits(r, targets[r]) -= scale;
  }
}

}  // namespace poslab::ops

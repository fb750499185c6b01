#include "core/attention/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/gemm.hpp"

namespace poslab {

RopeSpec rope_1d(const std::vector<double>& thetas, int heads, RopeStyle style, int queries, int keys) {
  RopeSpec spec;
  spec.enabled = true;
  spec.style = style;
  spec.pairs = static_cast<int>(thetas.size());
  for (int h = 0; h < heads; ++h) spec.theta_x.insert(spec.theta_x.end(), thetas.begin(), thetas.end());
  spec.theta_y.assign(spec.theta_x.size(), 0.0);
  for (int t = 0; t < queries; ++t) spec.query_positions.push_back({t, 0});
  for (int t = 0; t < keys; ++t) spec.key_positions.push_back({t, 0});
  return spec;
}

void rotate_head(Eigen::Ref<Matrix> X, const RopeSpec& spec, int head, const std::vector<RopePosition>& positions) {
  const std::size_t first = static_cast<std::size_t>(head) * static_cast<std::size_t>(spec.pairs);
  for (Eigen::Index t = 0; t < X.rows(); ++t) {
    const RopePosition pos = positions[static_cast<std::size_t>(t)];
    for (int i = 0; i < spec.pairs; ++i) {
      const double angle = pos.x * spec.theta_x[first + static_cast<std::size_t>(i)] +
                           pos.y * spec.theta_y[first + static_cast<std::size_t>(i)];
      const double c = std::cos(angle), s = std::sin(angle);
      const int a = spec.style == RopeStyle::Interleaved ? 2 * i : i;
      const int b = spec.style == RopeStyle::Interleaved ? 2 * i + 1 : i + spec.pairs;
      const double x = X(t, a), y = X(t, b);
      X(t, a) = static_cast<float>((x * c - y * s) * spec.scale);
      X(t, b) = static_cast<float>((x * s + y * c) * spec.scale);
    }
  }
}

AttentionInput project(const AttentionProblem& p) {
  AttentionInput in;
  in.Q = p.Xq * p.Wq;   // T_q × d
  in.K = p.Xkv * p.Wk;  // T_k × d
  in.V = p.Xkv * p.Wv;  // T_k × d
  in.heads = p.heads;
  in.causal = p.causal;
  in.key_valid = p.key_valid;
  in.relative_bias = p.relative_bias;
  in.shaw = p.shaw;
  in.keep = p.keep;
  if (p.rope.enabled && p.rope.pairs > 0) {
    const int dh = p.head_dim();
    for (int h = 0; h < p.heads; ++h) {  // per head, on q and k only, never on v
      rotate_head(in.Q.middleCols(h * dh, 2 * p.rope.pairs), p.rope, h, p.rope.query_positions);
      rotate_head(in.K.middleCols(h * dh, 2 * p.rope.pairs), p.rope, h, p.rope.key_positions);
    }
  }
  return in;
}

namespace {

// The −∞ mask and the relative bias of head h added to S (T_q × T_k) in place.
void add_bias_and_mask(const AttentionInput& in, int h, Matrix& S) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const int Tq = in.queries(), Tk = in.keys();
  if (in.relative_bias.size() > 0) {
    const auto row = in.relative_bias.row(h);
    for (int i = 0; i < Tq; ++i) S.row(i) += row.segment(Tq - 1 - i, Tk);  // offset j − i + T_q − 1
  }
  if (in.causal)
    for (int i = 0; i + 1 < Tk && i < Tq; ++i) S.row(i).tail(Tk - i - 1).setConstant(neg_inf);
  if (in.chunk > 0)
    for (int i = 0; i < Tq; ++i) {
      const int start = std::min(Tk, i / in.chunk * in.chunk), end = std::min(Tk, start + in.chunk);
      S.row(i).head(start).setConstant(neg_inf);
      S.row(i).tail(Tk - end).setConstant(neg_inf);
    }
  if (in.streaming.on())
    for (int i = 0; i < Tq; ++i)  // keys sink … i − window: between the sink tokens and the window
      for (int j = in.streaming.sink; j <= i - in.streaming.window && j < Tk; ++j) S(i, j) = neg_inf;
  for (int j = 0; j < Tk; ++j)
    if (in.key_valid[static_cast<std::size_t>(j)] == 0) S.col(j).setConstant(neg_inf);
}

float head_sink(const AttentionInput& in, int h) {
  return in.sinks.empty() ? -std::numeric_limits<float>::infinity() : in.sinks[static_cast<std::size_t>(h)];
}

// softmax_row on every row of S, in place: S becomes its weights, and no second T_q × T_k matrix
// is made. `share` (when given) receives each row's sink share.
void softmax_rows_in_place(Matrix& S, float sink, Eigen::VectorXf* share) {
  if (share) share->resize(S.rows());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    const float s = softmax_row(S.row(i).data(), static_cast<int>(S.cols()), sink);  // base/gemm.hpp
    if (share) (*share)(i) = s;
  }
}

}  // namespace

AttentionOutput attention_cpu(const AttentionInput& input) {
  const int dh = input.head_dim();
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(dh));
  AttentionOutput out;
  // Only some heads' matrices wanted: the context comes from the blocked path, which never holds
  // a whole T_q × T_k matrix, and only the kept heads' scores and weights are formed below.
  const bool blocked_context = input.keep.head >= 0 && !input.shaw;
  out.context = blocked_context ? attention_context_cpu(input) : Matrix::Zero(input.queries(), input.Q.cols());
  for (int h = 0; h < input.heads; ++h) {
    if (blocked_context && !input.keep.scores_of(h) && !input.keep.weights_of(h)) {
      out.scores.emplace_back();
      out.weights.emplace_back();
      continue;
    }
    const auto Qh = input.Q.middleCols(h * dh, dh);  // T_q × d_h
    const auto Kh = input.K.middleCols(h * dh, dh);  // T_k × d_h
    const auto Vh = input.V.middleCols(h * dh, dh);  // T_k × d_h
    Matrix S(input.queries(), input.keys());         // T_q × T_k
    // The two products through base/gemm, on the instruction set of the CPU that runs them (a
    // build for any x86-64 would otherwise multiply here with SSE2 alone).
    gemm_abt(input.queries(), input.keys(), dh, Qh.data(), static_cast<int>(input.Q.cols()), Kh.data(),
             static_cast<int>(input.K.cols()), S.data(), input.keys());
    if (input.shaw) S += shaw_score_term(Qh, *input.shaw);  // q·(k + aᴷ), scaled together
    S *= inv_sqrt;
    if (input.softcap > 0.0f) S.array() = input.softcap * (S.array() / input.softcap).tanh();
    add_bias_and_mask(input, h, S);
    const bool weights_in_place = !input.keep.scores_of(h);  // one T_q × T_k matrix, not two
    Matrix A = weights_in_place ? std::move(S) : S;
    Eigen::VectorXf share;
    softmax_rows_in_place(A, head_sink(input, h), input.sinks.empty() ? nullptr : &share);
    if (input.bf16) round_to_bf16(A.data(), A.size());
    if (!input.sinks.empty()) out.sink_share.push_back(std::move(share));
    if (!blocked_context) {
      gemm_ab(input.queries(), dh, input.keys(), A.data(), input.keys(), Vh.data(), static_cast<int>(input.V.cols()),
              out.context.data() + h * dh, static_cast<int>(out.context.cols()));
      if (input.shaw) out.context.middleCols(h * dh, dh) += shaw_value_term(A, *input.shaw);
    }
    out.scores.push_back(input.keep.scores_of(h) ? std::move(S) : Matrix());
    out.weights.push_back(input.keep.weights_of(h) ? std::move(A) : Matrix());
  }
  return out;
}

Matrix attention_context_cpu(const AttentionInput& input) {
  const int dh = input.head_dim();
  const int Tq = input.queries(), Tk = input.keys();
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(dh));
  constexpr int kBlock = 256;  // query rows per step: the scores of a block stay in cache
  Matrix context = Matrix::Zero(Tq, input.Q.cols());
#pragma omp parallel for schedule(dynamic, 1)  // heads are independent: one per core
  for (int h = 0; h < input.heads; ++h) {
    Matrix S;  // head h's q, k and v are columns [h·d_h, (h+1)·d_h) of Q, K and V
    for (int r0 = 0; r0 < Tq; r0 += kBlock) {
      const int rows = std::min(kBlock, Tq - r0);
      // With the causal mask, the block's queries see no key past its last row.
      const int keys = input.causal ? std::min(Tk, r0 + rows) : Tk;
      S.resize(rows, keys);  // rows × keys
      // The two products on the CPU's own instruction set (base/gemm.hpp).
      gemm_abt(rows, keys, dh, input.Q.data() + static_cast<Eigen::Index>(r0) * input.Q.cols() + h * dh, static_cast<int>(input.Q.cols()),
               input.K.data() + h * dh, static_cast<int>(input.K.cols()), S.data(), keys);
      S *= inv_sqrt;
      if (input.softcap > 0.0f) S.array() = input.softcap * (S.array() / input.softcap).tanh();
      for (int i = 0; i < rows; ++i) {
        auto row = S.row(i);
        const int q = r0 + i;
        if (input.relative_bias.size() > 0) row += input.relative_bias.row(h).segment(Tq - 1 - q, keys);
        const int visible = input.causal ? std::min(keys, q + 1) : keys;
        row.tail(keys - visible).setZero();
        auto head = row.head(visible);
        for (int j = 0; j < visible; ++j)
          if (input.key_valid[static_cast<std::size_t>(j)] == 0 || outside_chunk(q, j, input.chunk) || outside_stream(q, j, input.streaming))
            head(j) = -std::numeric_limits<float>::infinity();
        softmax_row(head.data(), visible, head_sink(input, h));
        if (input.bf16) round_to_bf16(head.data(), visible);
      }
      gemm_ab(rows, dh, keys, S.data(), keys, input.V.data() + h * dh, static_cast<int>(input.V.cols()),
              context.data() + static_cast<Eigen::Index>(r0) * context.cols() + h * dh, static_cast<int>(context.cols()));
    }
  }
  return context;
}

AttentionOutput solve_cpu(const AttentionProblem& problem) {
  AttentionOutput out = attention_cpu(project(problem));
  out.output = out.context * problem.Wo;
  return out;
}

Matrix mean_over_heads(const std::vector<Matrix>& per_head) {
  Matrix mean = Matrix::Zero(per_head.front().rows(), per_head.front().cols());
  for (const Matrix& m : per_head) mean += m;
  return mean / static_cast<float>(per_head.size());
}

double max_abs_difference(const AttentionOutput& a, const AttentionOutput& b) {
  double worst = 0.0;
  auto compare = [&worst](const Matrix& x, const Matrix& y) {
    if (x.size() > 0 && x.rows() == y.rows() && x.cols() == y.cols())
      worst = std::max(worst, static_cast<double>((x - y).cwiseAbs().maxCoeff()));
  };
  for (std::size_t h = 0; h < a.weights.size() && h < b.weights.size(); ++h) compare(a.weights[h], b.weights[h]);
  compare(a.context, b.context);
  compare(a.output, b.output);
  return worst;
}

}  // namespace poslab

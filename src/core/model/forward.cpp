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
#include "core/model/position_tables.hpp"

namespace poslab {

namespace {

// Rows of W converted per block: 64 rows of an 8192-wide matrix are 2 MB, which stays in cache
// between the conversion and the product.
constexpr std::int64_t kBlockRows = 64;

// Y (T × out) = X (T × in) · W for W stored out × in (Linear: Y = X·Wᵀ) or in × out (Conv1D),
// the weight converted a block of output columns at a time, the blocks shared by the cores.
Matrix linear(const Matrix& X, const WeightTensor& W, WeightLayout layout) {
  const bool out_in = layout == WeightLayout::OutIn;
  const std::int64_t in = out_in ? W.cols : W.rows, out = out_in ? W.rows : W.cols;
  Matrix Y(X.rows(), out);
  const std::int64_t blocks = (out + kBlockRows - 1) / kBlockRows;
#pragma omp parallel
  {
    Matrix buffer(out_in ? kBlockRows : in, out_in ? in : kBlockRows);
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t first = b * kBlockRows, n = std::min(kBlockRows, out - first);
      if (out_in) {
        read_rows(W, first, n, buffer.data());
        Y.middleCols(first, n).noalias() = X * buffer.topRows(n).transpose();
      } else {
        read_cols(W, first, n, buffer.data());
        Y.middleCols(first, n).noalias() =
            X * Eigen::Map<const Matrix>(buffer.data(), in, n);
      }
    }
  }
  return Y;
}

void add_bias(Matrix& Y, const WeightTensor& b) {
  if (!b.present()) return;
  Y.rowwise() += read_vector(b);
}

Matrix normalize(const Matrix& X, const WeightTensor& w, const WeightTensor& b, NormKind kind, double eps) {
  const RowVector weight = read_vector(w);
  Matrix Y(X.rows(), X.cols());
  for (Eigen::Index t = 0; t < X.rows(); ++t) {
    const auto x = X.row(t);
    if (kind == NormKind::Rms) {
      const double ms = x.cast<double>().squaredNorm() / static_cast<double>(x.size());
      Y.row(t) = (x * static_cast<float>(1.0 / std::sqrt(ms + eps))).cwiseProduct(weight);
    } else {
      const double mean = x.cast<double>().mean();
      const double var = (x.cast<double>().array() - mean).square().mean();
      Y.row(t) = ((x.array() - static_cast<float>(mean)) * static_cast<float>(1.0 / std::sqrt(var + eps))).matrix().cwiseProduct(weight);
    }
  }
  if (b.present()) Y.rowwise() += read_vector(b);
  return Y;
}

void activate(Matrix& X, Activation a) {
  auto v = X.array();
  switch (a) {
    case Activation::Silu: v = v / (1.0f + (-v).exp()); break;
    case Activation::Relu: v = v.max(0.0f); break;
    case Activation::GeluTanh:
      v = 0.5f * v * (1.0f + (0.7978845608028654f * (v + 0.044715f * v.cube())).tanh());
      break;
    case Activation::Gelu:
      for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = 0.5f * X.data()[i] * (1.0f + std::erf(X.data()[i] * 0.70710678f));
      break;
  }
}

// Hugging Face's repeat_kv: key/value head g serves query heads g·n … g·n + n − 1.
Matrix repeat_kv(const Matrix& X, int kv_heads, int heads, int head_dim) {
  if (kv_heads == heads) return X;
  const int group = heads / kv_heads;
  Matrix Y(X.rows(), static_cast<Eigen::Index>(heads) * head_dim);
  for (int h = 0; h < heads; ++h) Y.middleCols(h * head_dim, head_dim) = X.middleCols((h / group) * head_dim, head_dim);
  return Y;
}

HeadSummary summarize(const Matrix& A, const std::vector<int>& ids) {
  HeadSummary s;
  const Eigen::Index T = A.rows();
  // Where each token occurred so far; a repeated copy of a sequence makes j the start of the same
  // context, so the match length picks it even when the token is common.
  constexpr std::size_t kCandidates = 64, kLongestMatch = 64;
  std::unordered_map<int, std::vector<Eigen::Index>> seen;
  const auto n = std::min<Eigen::Index>(T, static_cast<Eigen::Index>(ids.size()));
  auto id = [&](Eigen::Index k) { return ids[static_cast<std::size_t>(k)]; };
  int repeats = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    std::vector<Eigen::Index>& earlier = seen[id(i)];
    Eigen::Index best = -1;
    std::size_t best_match = 0;
    for (std::size_t c = 0; c < std::min(earlier.size(), kCandidates); ++c) {
      const Eigen::Index j = earlier[earlier.size() - 1 - c];  // latest first
      std::size_t match = 1;
      while (match < kLongestMatch && j >= static_cast<Eigen::Index>(match) &&
             id(j - static_cast<Eigen::Index>(match)) == id(i - static_cast<Eigen::Index>(match)))
        ++match;
      if (match > best_match) best = j, best_match = match;
    }
    if (best >= 0) {
      s.induction += A(i, best + 1);
      ++repeats;
    }
    earlier.push_back(i);
  }
  if (repeats > 0) s.induction /= repeats;
  for (Eigen::Index i = 0; i < T; ++i) {
    s.sink += A(i, 0);
    for (Eigen::Index j = 0; j <= i && j < A.cols(); ++j) s.mean_distance += A(i, j) * static_cast<double>(i - j);
    if (i >= 1) s.previous_token += A(i, i - 1);
  }
  s.sink /= static_cast<double>(T);
  s.mean_distance /= static_cast<double>(T);
  s.previous_token = T > 1 ? s.previous_token / static_cast<double>(T - 1) : 0.0;
  return s;
}

// Barbero et al. 2024: per head and rotary pair i (dimensions i and i + r/2, the checkpoint's
// rotate-half pairs), the mean over positions of ‖q_i‖·‖k_i‖ — the frequencies a head uses.
Matrix frequency_usage(const Matrix& Q, const Matrix& K, const TransformerConfig& c) {
  const int pairs = c.rotary_dim / 2, group = c.heads / c.kv_heads;
  Matrix U = Matrix::Zero(c.heads, pairs);
  for (int h = 0; h < c.heads; ++h) {
    const int qo = h * c.head_dim, ko = (h / group) * c.head_dim;
    for (int i = 0; i < pairs; ++i) {
      double sum = 0.0;
      for (Eigen::Index t = 0; t < Q.rows(); ++t) {
        const double qn = std::hypot(Q(t, qo + i), Q(t, qo + i + pairs));
        const double kn = std::hypot(K(t, ko + i), K(t, ko + i + pairs));
        sum += qn * kn;
      }
      U(h, i) = static_cast<float>(sum / static_cast<double>(Q.rows()));
    }
  }
  return U;
}

void rotate(Matrix& X, int heads, int head_dim, const RopeSpec& spec) {
  for (int h = 0; h < heads; ++h) rotate_head(X.middleCols(h * head_dim, 2 * spec.pairs), spec, 0, spec.query_positions);
}

// Logits of the rows of H (positions × hidden): positions × V, the LM head converted a block at a time.
Matrix logits_of(const Matrix& H, const Checkpoint& model) {
  return linear(H, model.lm_head(), WeightLayout::OutIn);
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

// heads × (2T − 1) bias by key − query offset o (column o + T − 1), causal: ALiBi's −m_h·(i − j),
// or T5's learned bucket table (buckets × heads, shared by the layers); empty for the others.
Matrix relative_bias(const Checkpoint& model, int T) {
  const TransformerConfig& c = model.config();
  if (c.positions != PositionKind::Alibi && c.positions != PositionKind::T5) return Matrix();
  Matrix B = Matrix::Zero(c.heads, 2 * T - 1);
  if (c.positions == PositionKind::Alibi) {
    const std::vector<double> by_distance = alibi_by_distance(c.heads, T);
    for (int h = 0; h < c.heads; ++h)
      for (int d = 0; d < T; ++d)
        B(h, T - 1 - d) = static_cast<float>(by_distance[static_cast<std::size_t>(h) * static_cast<std::size_t>(T) + static_cast<std::size_t>(d)]);
    return B;
  }
  Matrix table(c.t5_buckets, c.heads);
  read_rows(model.relative_bias(), 0, c.t5_buckets, table.data());
  const std::vector<int> buckets = t5_buckets_by_offset(T, false, c.t5_buckets, c.t5_max_distance);
  for (int o = 0; o < 2 * T - 1; ++o)
    for (int h = 0; h < c.heads; ++h) B(h, o) = table(buckets[static_cast<std::size_t>(o)], h);
  return B;
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
  if (v.pairing != RopeStyle::Half) sep() << "interleaved pairs (wrong for this checkpoint)";
  if (v.position_shift != 0) sep() << "positions shifted by " << v.position_shift;
  return s.tellp() > 0 ? s.str() : "unchanged";
}

const LayerAttention* ForwardResult::layer(int l) const {
  for (const LayerAttention& a : layers)
    if (a.layer == l) return &a;
  return nullptr;
}

RopeFrequencies model_rope_frequencies(const TransformerConfig& c, const PositionIntervention& v, int tokens) {
  const double theta = v.rope_theta.value_or(c.rope_theta);
  const RopeScaling scaling = v.scaling.value_or(c.scaling);
  return rotary_angles(c.rotary_dim, theta, scaling, tokens + std::max(0, v.position_shift), c.rope_fraction);
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
  return Ok{};
}

// x = embed(ids), plus the learned table's rows (GPT-2, from the shift) or the sinusoid.
Matrix embed_tokens(const Checkpoint& model, const std::vector<int>& ids, const PositionIntervention& v) {
  const TransformerConfig& c = model.config();
  const int T = static_cast<int>(ids.size());
  Matrix X(T, c.hidden);
  for (int t = 0; t < T; ++t) read_rows(model.embed(), ids[static_cast<std::size_t>(t)], 1, X.row(t).data());
  if (v.positions_off) return X;
  if (c.positions == PositionKind::Learned) {
    Matrix P(T, c.hidden);
    read_rows(model.positions(), v.position_shift, T, P.data());
    X += P;
  }
  if (c.positions == PositionKind::Sinusoidal) X += sinusoidal_encoding(T + v.position_shift, c.hidden, 10000.0).bottomRows(T);
  return X;
}

// RoPE's rotation for T tokens at positions t + shift (with any change of base or scaling); empty
// when the model has no RoPE or it is turned off.
std::optional<RopeSpec> rope_for(const TransformerConfig& c, const PositionIntervention& v, int T) {
  if (c.positions != PositionKind::Rope || v.positions_off || c.rotary_dim < 2) return std::nullopt;
  const RopeFrequencies f = model_rope_frequencies(c, v, T);
  RopeSpec spec = rope_1d(f.thetas, 1, v.pairing, T, T);
  spec.scale = f.attention_scale;
  for (int t = 0; t < T; ++t) spec.query_positions[static_cast<std::size_t>(t)].x = t + v.position_shift;
  return spec;
}

struct Projections {
  Matrix Q, K, V;
};

Projections project_qkv(const Matrix& H, const LayerWeights& w, const TransformerConfig& c) {
  const WeightLayout layout = c.arch->layout;
  Projections p;
  if (w.qkv.present()) {
    Matrix QKV = linear(H, w.qkv, layout);
    add_bias(QKV, w.qkv_bias);
    p.Q = QKV.leftCols(c.query_width());
    p.K = QKV.middleCols(c.query_width(), c.kv_width());
    p.V = QKV.rightCols(c.kv_width());
    return p;
  }
  p.Q = linear(H, w.q, layout);
  p.K = linear(H, w.k, layout);
  p.V = linear(H, w.v, layout);
  add_bias(p.Q, w.q_bias);
  add_bias(p.K, w.k_bias);
  add_bias(p.V, w.v_bias);
  return p;
}

// x += MLP(norm(x)): gated (down(act(gate) ⊙ up)) or plain (proj(act(fc))).
void mlp_block(Matrix& X, const LayerWeights& w, const TransformerConfig& c) {
  const WeightLayout layout = c.arch->layout;
  const Matrix H2 = normalize(X, w.mlp_norm, w.mlp_norm_bias, c.arch->norm, c.norm_eps);
  Matrix up = linear(H2, w.up, layout);
  add_bias(up, w.up_bias);
  if (c.arch->mlp == MlpKind::Gated) {
    Matrix gate = linear(H2, w.gate, layout);
    activate(gate, c.activation);
    up.array() *= gate.array();
  } else {
    activate(up, c.activation);
  }
  Matrix down = linear(up, w.down, layout);
  add_bias(down, w.down_bias);
  X += down;
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
// GPU fails) and what every layer shares (the relative bias, RoPE's rotation).
class ForwardPass {
 public:
  ForwardPass(const Checkpoint& model, const ForwardOptions& options) : model_(model), options_(options) {}
  Result<ForwardResult> run(const std::vector<int>& ids);

 private:
  Status run_layer(int l, Matrix& X);
  Status read_out(const Matrix& X);

  const Checkpoint& model_;
  const ForwardOptions& options_;
  ForwardResult result_;
  CpuBackend cpu_;
  AttentionBackend* backend_ = nullptr;
  Matrix bias_;
  std::optional<RopeSpec> rope_;
};

}  // namespace

// One layer: x += attention(norm(x)) on the backend (the CPU when it fails), x += MLP(norm(x)).
Status ForwardPass::run_layer(int l, Matrix& X) {
  const TransformerConfig& c = model_.config();
  const LayerWeights& w = model_.layers()[static_cast<std::size_t>(l)];
  const bool keep = options_.all_layers || std::find(options_.keep_layers.begin(), options_.keep_layers.end(), l) != options_.keep_layers.end();
  Projections p = project_qkv(normalize(X, w.attn_norm, w.attn_norm_bias, c.arch->norm, c.norm_eps), w, c);
  LayerAttention layer;
  layer.layer = l;
  if (keep && c.positions == PositionKind::Rope && c.rotary_dim >= 2) layer.frequency_usage = frequency_usage(p.Q, p.K, c);
  if (rope_) {
    rotate(p.Q, c.heads, c.head_dim, *rope_);
    rotate(p.K, c.kv_heads, c.head_dim, *rope_);
  }
  AttentionInput in;
  in.Q = std::move(p.Q);
  in.K = repeat_kv(p.K, c.kv_heads, c.heads, c.head_dim);
  in.V = repeat_kv(p.V, c.kv_heads, c.heads, c.head_dim);
  in.heads = c.heads;
  in.causal = true;
  in.key_valid.assign(static_cast<std::size_t>(X.rows()), 1);
  in.relative_bias = bias_;
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
  Matrix out = linear(attended->context, w.o, c.arch->layout);
  add_bias(out, w.o_bias);
  X += out;
  if (auto s = check_finite(X, "layer " + std::to_string(l) + "'s attention"); !s) return s;
  mlp_block(X, w, c);
  return check_finite(X, "layer " + std::to_string(l) + "'s MLP");
}

// Logits in chunks of positions, so that T × V floats are never all held (unless asked): the top
// k of each position and the mean cross-entropy of each next token.
Status ForwardPass::read_out(const Matrix& X) {
  const TransformerConfig& c = model_.config();
  const std::vector<int>& ids = result_.ids;
  const Eigen::Index T = X.rows();
  const Matrix H = normalize(X, model_.final_norm(), model_.final_norm_bias(), c.arch->norm, c.norm_eps);
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
  bias_ = v.positions_off ? Matrix() : relative_bias(model_, T);
  rope_ = rope_for(c, v, T);
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

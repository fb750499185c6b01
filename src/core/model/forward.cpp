#include "core/model/forward.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "core/attention/dog.hpp"
#include "base/memory.hpp"
#include "core/formats/tokenizer.hpp"
#include "core/model/forward_parts.hpp"
#include "core/model/head_stats.hpp"
#include "core/model/layer_ops.hpp"
#include "core/model/position_tables.hpp"

namespace poslab {

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
  if (v.drop_pairs)
    sep() << (v.drop_pairs->highest ? "highest " : "lowest ") << std::lround(100.0 * v.drop_pairs->fraction) << "% of RoPE's pairs stopped";
  if (v.sinks_off) sep() << "learned sinks removed";
  if (v.chunk) sep() << (*v.chunk == 0 ? std::string("no chunks") : "chunks of " + std::to_string(*v.chunk));
  if (v.streaming.on())
    sep() << "streaming: the first " << v.streaming.sink << " and the last " << v.streaming.window << " tokens";
  if (v.causal_off) sep() << "no causal mask";
  return s.tellp() > 0 ? s.str() : "unchanged";
}

const LayerAttention* ForwardResult::layer(int l, ModelStack s) const {
  for (const LayerAttention& a : layers)
    if (a.layer == l && a.stack == s && !a.summary_only) return &a;
  return nullptr;
}

RopeFrequencies model_rope_frequencies(const TransformerConfig& c, const PositionIntervention& v, int tokens, int layer) {
  const bool local = layer >= 0 && c.rope_local_theta && c.is_local(layer);
  const double theta = local ? v.local_base.value_or(*c.rope_local_theta) : v.rope_theta.value_or(c.rope_theta);
  RopeScaling scaling = layer >= 0 && c.unscaled_rope(layer) ? RopeScaling{} : v.scaling.value_or(c.scaling);
  if (v.rope_factors) scaling.longrope_set = *v.rope_factors;
  const TransformerConfig::LayerShape shape = c.shape(layer);
  int rotary = shape.rotary_dim;
  double fraction = shape.rope_fraction;
  // --rotary-dim: the turning dimensions of every head; in Gemma 4, of the full layers' heads,
  // whose proportional RoPE keeps its frequencies over the whole head and turns that many pairs.
  if (v.rotary_dim && !c.arch->layer_shapes) rotary = *v.rotary_dim;
  if (v.rotary_dim && c.proportional_rope && layer >= 0 && !c.is_local(layer)) fraction = static_cast<double>(*v.rotary_dim / 2) / (shape.head_dim / 2);
  RopeFrequencies f = rotary_angles(rotary, theta, scaling, tokens + std::max(0, v.position_shift), fraction);
  if (v.drop_pairs) drop_pairs(f.thetas, *v.drop_pairs);
  return f;
}

int layer_window(const TransformerConfig& c, const PositionIntervention& v, int layer) {
  if (!c.is_local(layer)) return 0;
  return v.window.value_or(c.sliding_window);
}

int layer_chunk(const TransformerConfig& c, const PositionIntervention& v, int layer) {
  if (c.chunked.empty() || !c.chunked[static_cast<std::size_t>(layer)]) return 0;
  return v.chunk.value_or(c.chunk_size);
}

double query_temperature(const TransformerConfig& c, int position) {
  return std::log(std::floor((position + 1.0) / c.floor_scale) + 1.0) * c.attn_scale + 1.0;
}

Result<std::vector<int>> model_tokens(const Checkpoint& model, const std::string& sentence, std::vector<std::string>* unknown) {
  if (!model.tokenizer()) return Error{model.folder().string() + ": no tokenizer.json, so sentences cannot be split"};
  // What tokenizing takes follows from the length alone: a sentence too long is refused before the work.
  if (auto fits = check_tokenizing_memory(sentence.size()); !fits) return Error{fits.error()};
  std::vector<std::string> missing;
  auto ids = model.tokenizer()->encode(sentence, unknown ? unknown : &missing);
  if (!ids) return Error{ids.error()};
  if (ids->empty()) return Error{no_tokens_message("sentence", unknown ? *unknown : missing, "")};
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

bool cancelled(const ForwardOptions& o) { return o.cancel && o.cancel->load(); }

// The `count` largest |x| of a layer's output (a min-heap of that size over one scan) and the
// median |x| (from one copy of the magnitudes, as large as X itself).
ResidualPeaks largest_activations(const Matrix& X, int layer, int count) {
  ResidualPeaks a;
  a.layer = layer;
  if (X.size() == 0 || count < 1) return a;
  using Seen = std::pair<float, Eigen::Index>;
  std::vector<Seen> heap;  // the smallest of the largest at the front
  std::vector<float> magnitudes(static_cast<std::size_t>(X.size()));
  for (Eigen::Index k = 0; k < X.size(); ++k) {
    const float m = std::abs(X.data()[k]);
    magnitudes[static_cast<std::size_t>(k)] = m;
    if (heap.size() < static_cast<std::size_t>(count)) {
      heap.push_back({m, k});
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    } else if (m > heap.front().first) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      heap.back() = {m, k};
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
  }
  std::sort(heap.begin(), heap.end(), std::greater<>());
  for (const auto& [m, k] : heap)  // row-major: row (position) k / cols, column (dim) k % cols
    a.top.push_back({static_cast<int>(k / X.cols()), static_cast<int>(k % X.cols()), X.data()[k]});
  // The median as statistics defines it: of an even count, the mean of the two middle values.
  auto middle = magnitudes.begin() + static_cast<std::ptrdiff_t>(magnitudes.size() / 2);
  std::nth_element(magnitudes.begin(), middle, magnitudes.end());
  a.median_abs = *middle;
  if (magnitudes.size() % 2 == 0) a.median_abs = 0.5f * (a.median_abs + *std::max_element(magnitudes.begin(), middle));
  return a;
}

// One stack of layers as a pass runs it (a decoder's, an encoder's, or one of T5's two): its
// weights, its final norm, whether it is causal, and what its layers share — the relative bias
// and RoPE's rotation, each for the global layers and for the local (windowed) ones.
struct Stack {
  const std::vector<LayerWeights>* layers = nullptr;
  const WeightTensor* final_norm = nullptr;
  const WeightTensor* final_norm_bias = nullptr;
  bool causal = true;
  ModelStack stack = ModelStack::Encoder;      // its self-attention's (the first stack: Encoder)
  bool keep_self = false, keep_cross = false;  // whether its kept layers' attention is recorded
  Matrix bias_global, bias_local;
  std::optional<RopeSpec> rope_global, rope_local;
};

struct PositionReadout;

class ForwardPass {
 public:
  ForwardPass(const Checkpoint& model, const ForwardOptions& options) : model_(model), options_(options) {}
  Result<ForwardResult> run(const std::vector<int>& ids);

 private:
  Stack first_stack(int T, const WeightTensor& bias_table);
  Status run_stack(Stack& s, Matrix& X, const Matrix* encoded, int progress_offset);
  Status run_layer(const Stack& s, int l, Matrix& X, const Matrix* encoded);
  Result<Matrix> attend(const Stack& s, int l, QkvProjections p, bool keep);
  void llama4_queries_and_keys(int l, QkvProjections& p, LayerAttention& layer) const;
  void share_keys_and_values(int l, QkvProjections& p);
  void split_latent_scores(const AttentionInput& in, LayerAttention& layer) const;
  Result<Matrix> attend_encoder(int l, const LayerWeights& w, const Matrix& H, const Matrix& encoded, bool keep);
  Result<Matrix> compute(AttentionInput in, LayerAttention layer, bool keep, const std::vector<int>& summary_ids);
  Status run_decoder(const Matrix& encoded);
  Status read_out(const Matrix& X, const WeightTensor& norm, const WeightTensor& norm_bias, const std::vector<int>& ids);
  void finish_read_out(const std::vector<PositionReadout>& readouts, const std::vector<int>& ids);
  bool keeps(int l) const {
    return options_.all_layers || std::find(options_.keep_layers.begin(), options_.keep_layers.end(), l) != options_.keep_layers.end();
  }
  int total_layers() const { return model_.config().layers + model_.config().decoder_layers; }

  const Checkpoint& model_;
  const ForwardOptions& options_;
  ForwardResult result_;
  CpuBackend cpu_;
  AttentionBackend* backend_ = nullptr;
  std::map<int, std::pair<Matrix, Matrix>> shared_kv_;  // Gemma 4: the keys and values later layers reuse, by layer
  Matrix per_layer_inputs_;                             // Gemma 4: T × (layers · width)
};

// The model's first stack over T tokens: its relative bias and window, RoPE for its global and
// local layers (they differ only by base, so one layer of each kind gives it).
Stack ForwardPass::first_stack(int T, const WeightTensor& bias_table) {
  const TransformerConfig& c = model_.config();
  const PositionIntervention& v = options_.intervention;
  Stack s;
  s.layers = &model_.layers();
  s.final_norm = &model_.final_norm();
  s.final_norm_bias = &model_.final_norm_bias();
  s.causal = !c.bidirectional() && !v.causal_off;
  s.keep_self = options_.stack == ModelStack::Encoder || options_.all_stacks;
  s.bias_global = relative_bias(model_, bias_table, v, T, !s.causal);
  for (int l = 0; l < c.layers; ++l)
    if (c.is_local(l)) {
      s.bias_local = with_window(s.bias_global, c.heads, T, layer_window(c, v, l), !s.causal);
      break;
    }
  for (int l = 0; l < c.layers; ++l)
    if (c.rotates(l)) (c.is_local(l) ? s.rope_local : s.rope_global) = rope_for(c, v, T, l);
  return s;
}

// The attention an input asks for, on the backend (the CPU when it fails), kept as `layer` when
// asked: weights, scores and, for a self-attention, the heads' summaries over `summary_ids`.
Result<Matrix> ForwardPass::compute(AttentionInput in, LayerAttention layer, bool keep, const std::vector<int>& summary_ids) {
  const bool needs_weights = keep || options_.summarize_all_layers;
  // Scores the run does not keep are not formed beside the weights (the softmax runs in place).
  if (!options_.keep_scores || !keep) in.keep.scores = false;
  if (keep && options_.keep_qk) {
    layer.queries = in.Q;
    layer.keys = in.K;
  }
  auto attended = backend_->attend(in, needs_weights);
  if (!attended && backend_ != &cpu_) {
    result_.backend = cpu_.name() + " (" + backend_->name() + " failed: " + attended.error() + ")";
    backend_ = &cpu_;
    attended = cpu_.attend(in, needs_weights);
  }
  if (!attended) return Error{attended.error()};
  round_activations(attended->context);  // BF16: the heads' output as PyTorch's attention returns it
  if (!needs_weights) return std::move(attended->context);
  if (keep && options_.check_against_cpu && backend_ != &cpu_)
    result_.max_diff_vs_cpu = std::max(result_.max_diff_vs_cpu.value_or(0.0), max_abs_difference(*attended, attention_cpu(in)));
  for (const Matrix& A : attended->weights) layer.heads.push_back(layer.cross ? HeadSummary{A.col(0).mean()} : summarize(A, summary_ids));
  if (keep) {
    if (options_.keep_scores) layer.scores = std::move(attended->scores);  // the GPU's are dropped here
    else layer.scores.assign(attended->weights.size(), Matrix());
    layer.weights = std::move(attended->weights);
    layer.sink_share = std::move(attended->sink_share);
  } else {
    layer.summary_only = true;  // the heads' summaries alone: the matrices go with this layer
  }
  result_.layers.push_back(std::move(layer));
  return std::move(attended->context);
}

// Self-attention of layer l from its projections: RoPE as the layer has it, the query scale
// (Gemma's, T5's none), the stack's bias and the layer's window.
Result<Matrix> ForwardPass::attend(const Stack& s, int l, QkvProjections p, bool keep) {
  const TransformerConfig& c = model_.config();
  const bool first = s.layers == &model_.layers();  // windows and RoPE are the first stack's
  LayerAttention layer;
  layer.layer = l;
  layer.causal = s.causal;
  layer.stack = s.stack;
  layer.position_bias = (c.positions == PositionKind::Alibi || c.positions == PositionKind::T5) && !options_.intervention.positions_off;
  layer.window = first ? layer_window(c, options_.intervention, l) : 0;
  const TransformerConfig::LayerShape shape = c.shape(first ? l : -1);
  if (first) share_keys_and_values(l, p);
  if (keep && first && c.positions == PositionKind::Rope && shape.rotary_dim >= 2) layer.frequency_usage = frequency_usage(p.Q, p.K, c, shape);
  const bool local = first && c.is_local(l);
  const std::optional<RopeSpec>& rope = local ? s.rope_local : s.rope_global;
  if (first && rope && c.rotates(l)) {
    rotate(p.Q, c.heads, shape.head_dim, *rope);
    rotate(p.K, shape.kv_heads, shape.head_dim, *rope);
    layer.rotated = true;
  }
  if (first) llama4_queries_and_keys(l, p, layer);
  if (c.query_scale > 0.0) p.Q *= static_cast<float>(c.query_scale * std::sqrt(static_cast<double>(shape.head_dim)));
  AttentionInput in;
  if (first) {
    in.chunk = layer.chunk = layer_chunk(c, options_.intervention, l);
    in.streaming = layer.streaming = options_.intervention.streaming;
    if (c.learned_sinks && !options_.intervention.sinks_off) {
      const RowVector sinks = read_vector((*s.layers)[static_cast<std::size_t>(l)].sinks);
      in.sinks.assign(sinks.data(), sinks.data() + sinks.size());
    }
  }
  in.Q = std::move(p.Q);
  in.K = repeat_kv(p.K, shape.kv_heads, c.heads, shape.head_dim);
  in.V = repeat_kv(p.V, shape.kv_heads, c.heads, shape.head_dim);
  in.heads = c.heads;
  in.causal = s.causal;
  in.softcap = static_cast<float>(c.attn_softcap);
  in.key_valid.assign(static_cast<std::size_t>(in.K.rows()), 1);
  in.bf16 = bf16_activations();
  in.relative_bias = local ? s.bias_local : s.bias_global;
  if (first && keep && c.latent()) split_latent_scores(in, layer);
  return compute(std::move(in), std::move(layer), keep, first ? result_.ids : result_.decoder_ids);
}

// Gemma 4's KV sharing: a layer that others reuse keeps its keys (normed, before RoPE) and
// values; a layer that reuses takes them (and rotates the keys as its kind does, as they were).
void ForwardPass::share_keys_and_values(int l, QkvProjections& p) {
  const TransformerConfig& c = model_.config();
  if (c.kv_shared_layers <= 0) return;
  if (const int source = c.kv_source(l); source >= 0) {
    const auto& [K, V] = shared_kv_.at(source);
    p.K = K;
    p.V = V;
    return;
  }
  for (int later = c.layers - c.kv_shared_layers; later < c.layers; ++later)
    if (c.kv_source(later) == l) {
      shared_kv_[l] = {p.K, p.V};
      return;
    }
}

// DeepSeek: each head's score as its content part (q_nope·k_nope) and its position part
// (q_pe·k_pe), both with the softmax scale; −∞ where the mask is, as in the scores.
void ForwardPass::split_latent_scores(const AttentionInput& in, LayerAttention& layer) const {
  const TransformerConfig& c = model_.config();
  const int dh = c.head_dim, dr = c.rotary_dim, dn = c.qk_nope_dim;
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(dh));
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (int h = 0; h < c.heads; ++h) {
    Matrix position = (in.Q.middleCols(h * dh, dr) * in.K.middleCols(h * dh, dr).transpose()) * inv_sqrt;
    Matrix content = (in.Q.middleCols(h * dh + dr, dn) * in.K.middleCols(h * dh + dr, dn).transpose()) * inv_sqrt;
    for (Eigen::Index i = 0; i < position.rows(); ++i)
      for (Eigen::Index j = 0; j < position.cols(); ++j)
        if (layer.masked(static_cast<int>(i), static_cast<int>(j))) position(i, j) = content(i, j) = neg_inf;
    layer.score_position.push_back(std::move(position));
    layer.score_content.push_back(std::move(content));
  }
}

// Llama 4, after RoPE: on the rotating layers each head's q and k divided by their root mean
// square (an L2 norm without weight); on the NoPE layers each query × its position's temperature
// (not when positions are off: the temperature is a function of the position).
void ForwardPass::llama4_queries_and_keys(int l, QkvProjections& p, LayerAttention& layer) const {
  const TransformerConfig& c = model_.config();
  const PositionIntervention& v = options_.intervention;
  if (c.qk_l2_norm && c.rotates(l)) {
    const auto l2 = [&c](Matrix& X) {
      for (Eigen::Index t = 0; t < X.rows(); ++t)
        for (Eigen::Index h = 0; h < X.cols() / c.head_dim; ++h) {
          auto head = X.row(t).segment(h * c.head_dim, c.head_dim);
          head /= std::sqrt(head.squaredNorm() / static_cast<float>(c.head_dim) + static_cast<float>(c.norm_eps));
        }
    };
    l2(p.Q);
    l2(p.K);
  }
  if (c.temperature_tuning && !c.rotates(l) && !v.positions_off) {
    for (Eigen::Index t = 0; t < p.Q.rows(); ++t) p.Q.row(t) *= static_cast<float>(query_temperature(c, static_cast<int>(t) + v.position_shift));
    layer.temperature = true;
  }
}

// T5's cross-attention of decoder layer l: queries from the decoder's normed state, keys and
// values from the encoder's output; no positions, no mask, T5's unscaled scores. On the CPU: the
// backends' shaders take one length for queries and keys.
Result<Matrix> ForwardPass::attend_encoder(int l, const LayerWeights& w, const Matrix& H, const Matrix& encoded, bool keep) {
  const TransformerConfig& c = model_.config();
  LayerAttention layer;
  layer.layer = l;
  layer.causal = false;
  layer.cross = true;
  layer.stack = ModelStack::Cross;
  AttentionInput in;
  in.Q = linear(H, w.cross_q, c.arch->layout);
  if (c.query_scale > 0.0) in.Q *= static_cast<float>(c.query_scale * std::sqrt(static_cast<double>(c.head_dim)));
  in.K = repeat_kv(linear(encoded, w.cross_k, c.arch->layout), c.kv_heads, c.heads, c.head_dim);
  in.V = repeat_kv(linear(encoded, w.cross_v, c.arch->layout), c.kv_heads, c.heads, c.head_dim);
  in.heads = c.heads;
  in.key_valid.assign(static_cast<std::size_t>(encoded.rows()), 1);
  in.bf16 = bf16_activations();
  AttentionBackend* backend = backend_;
  backend_ = &cpu_;
  auto context = compute(std::move(in), std::move(layer), keep, {});
  backend_ = backend;
  return context;
}

// One layer. Pre-LN: x += attention(norm(x)) (Gemma: normed again), [T5's decoder: x +=
// cross-attention(norm(x))], then x += MLP(norm(x)); in parallel (GPT-NeoX, GPT-J), x +=
// attention(n₁(x)) + MLP(n₂(x)). Post-LN (BERT): x = norm(x + attention(x)); x = norm(x + MLP(x)).
Status ForwardPass::run_layer(const Stack& s, int l, Matrix& X, const Matrix* encoded) {
  const TransformerConfig& c = model_.config();
  const LayerWeights& w = (*s.layers)[static_cast<std::size_t>(l)];
  const double offset = c.arch->norm_offset;
  const auto norm = [&](const Matrix& M, const WeightTensor& wt, const WeightTensor& b) { return normalize(M, wt, b, c.arch->norm, c.norm_eps, offset); };
  const bool post = c.arch->norm_placement == NormPlacement::Post;
  const std::string where = (encoded ? "decoder layer " : "layer ") + std::to_string(l);
  const Matrix H = post ? X : norm(X, w.attn_norm, w.attn_norm_bias);
  // A mixture's routing of this layer, kept for predict's "experts" and the Model tab.
  std::vector<ExpertChoice>* routes = nullptr;
  if (c.experts > 0 && !encoded) {
    result_.experts.resize(static_cast<std::size_t>(c.layers));
    routes = &result_.experts[static_cast<std::size_t>(l)];
  }
  auto context = attend(s, l, project_qkv(H, w, c, encoded ? -1 : l), s.keep_self && keeps(l));
  if (!context) return Error{context.error()};
  Matrix out = linear(c.latent() ? latent_context(*context, c) : *context, w.o, c.arch->layout);
  add_bias(out, w.o_bias);
  if (w.post_attn_norm.present()) out = norm(out, w.post_attn_norm, {});
  if (auto st = check_finite(out, where + "'s attention"); !st) return st;
  // A sum of two BF16 tensors is BF16 again (rounded; nothing in float32).
  const auto sum = [](Matrix M) {
    round_activations(M);
    return M;
  };
  if (post) {
    X = norm(sum(X + out), w.attn_norm, w.attn_norm_bias);
    X = norm(sum(X + feed_forward(X, w, c, routes, l)), w.mlp_norm, w.mlp_norm_bias);
  } else if (c.parallel_residual) {
    const Matrix H2 = w.mlp_norm.present() ? norm(X, w.mlp_norm, w.mlp_norm_bias) : H;
    X = sum(X + sum(out + feed_forward(H2, w, c, routes, l)));
  } else {
    X = sum(X + out);
    if (encoded) {
      auto cross = attend_encoder(l, w, norm(X, w.cross_norm, {}), *encoded, s.keep_cross && keeps(l));
      if (!cross) return Error{cross.error()};
      X = sum(X + linear(*cross, w.cross_o, c.arch->layout));
    }
    X = sum(X + feed_forward(norm(X, w.mlp_norm, w.mlp_norm_bias), w, c, routes, encoded ? -1 : l, &X));
  }
  // Gemma 4: the layer's per-layer input through its gate, then the layer's scalar.
  if (!encoded && per_layer_inputs_.size() > 0)
    add_per_layer_input(X, w, c, per_layer_inputs_.middleCols(static_cast<Eigen::Index>(l) * c.per_layer_input, c.per_layer_input));
  if (w.layer_scalar.present()) X = sum(X * read_vector(w.layer_scalar)(0));
  return check_finite(X, where + "'s MLP");
}

Status ForwardPass::run_stack(Stack& s, Matrix& X, const Matrix* encoded, int progress_offset) {
  for (int l = 0; l < static_cast<int>(s.layers->size()); ++l) {
    if (cancelled(options_)) return Error{"cancelled"};
    if (auto st = run_layer(s, l, X, encoded); !st) return st;
    if (options_.top_activations > 0 && !encoded) result_.activations.push_back(largest_activations(X, l, options_.top_activations));
    if (options_.each_layer && !encoded) options_.each_layer(l, X);
    if (options_.progress) options_.progress(static_cast<double>(progress_offset + l + 1) / (total_layers() + 1));
  }
  return cancelled(options_) ? Status(Error{"cancelled"}) : Status(Ok{});
}

// T5's decoder over the encoder's output: the start token and the target's tokens, causal
// buckets of its own, cross-attention in every layer, then the next-token predictions.
Status ForwardPass::run_decoder(const Matrix& encoded) {
  const TransformerConfig& c = model_.config();
  const PositionIntervention& v = options_.intervention;
  std::vector<int> ids = options_.decoder_ids.empty() ? std::vector<int>{c.decoder_start} : options_.decoder_ids;
  if (auto st = check_request(c, ids, v); !st) return Error{"the decoder's input: " + st.error()};
  const int T = static_cast<int>(ids.size());
  result_.decoder_ids = ids;
  result_.decoder_tokens = token_texts(model_, ids);
  Stack s;
  s.layers = &model_.decoder_layers();
  s.causal = true;
  s.stack = ModelStack::Decoder;
  s.keep_self = options_.stack == ModelStack::Decoder || options_.all_stacks;
  s.keep_cross = options_.stack == ModelStack::Cross || options_.all_stacks;
  s.bias_global = relative_bias(model_, model_.decoder_relative_bias(), v, T, false);
  Matrix Y = embed_tokens(model_, ids, v, false);
  round_activations(Y);
  if (auto st = run_stack(s, Y, &encoded, c.layers); !st) return st;
  return read_out(Y, model_.decoder_final_norm(), {}, ids);
}

// What one position's logits have said so far, chunk by chunk: the running log-sum-exp (its
// largest logit and the sum of e^(logit − largest)), the next token's logit, the k largest.
struct PositionReadout {
  double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
  float next = 0.0f;
  std::vector<std::pair<float, int>> top;  // (logit, id), largest first; equal logits by id
};

bool higher(const std::pair<float, int>& a, const std::pair<float, int>& b) {
  return a.first > b.first || (a.first == b.first && a.second < b.second);
}

// Rows [row0, row0 + L.rows()) of the logits, vocabulary columns [v0, v0 + L.cols()), into the
// positions' running read-outs, the rows shared by the cores (each row's read-out is its own).
void accumulate(const Matrix& L, Eigen::Index row0, int v0, int k, const std::vector<int>& ids, std::vector<PositionReadout>& out) {
#pragma omp parallel for schedule(static) if (L.rows() > 1)
  for (Eigen::Index i = 0; i < L.rows(); ++i) {
    thread_local std::vector<int> order;
    order.resize(static_cast<std::size_t>(L.cols()));
    const Eigen::Index t = row0 + i;
    const auto row = L.row(i);
    PositionReadout& r = out[static_cast<std::size_t>(t)];
    const double m = std::max(r.max, static_cast<double>(row.maxCoeff()));
    r.sum = r.sum * std::exp(r.max - m) + (row.cast<double>().array() - m).exp().sum();
    r.max = m;
    if (t + 1 < static_cast<Eigen::Index>(ids.size())) {
      const int next = ids[static_cast<std::size_t>(t + 1)] - v0;
      if (next >= 0 && next < L.cols()) r.next = row(next);
    }
    const int kk = std::min<int>(k, static_cast<int>(L.cols()));
    for (int j = 0; j < L.cols(); ++j) order[static_cast<std::size_t>(j)] = j;
    std::partial_sort(order.begin(), order.begin() + kk, order.end(),
                      [&row](int a, int b) { return row(a) > row(b) || (row(a) == row(b) && a < b); });
    for (int j = 0; j < kk; ++j) r.top.emplace_back(row(order[static_cast<std::size_t>(j)]), v0 + order[static_cast<std::size_t>(j)]);
    std::sort(r.top.begin(), r.top.end(), higher);
    if (static_cast<int>(r.top.size()) > k) r.top.resize(static_cast<std::size_t>(k));
  }
}

// A block of the output head's rows (vocabulary entries [first, first + count)) as a tensor of its
// own, for the types stored a value at a time; none for the scaled formats.
std::optional<WeightTensor> head_rows(const WeightTensor& w, std::int64_t first, std::int64_t count) {
  if (w.type != WeightType::F32 && w.type != WeightType::F16 && w.type != WeightType::BF16) return std::nullopt;
  WeightTensor part = w;
  part.data = w.data + static_cast<std::size_t>(first * w.cols) * (w.type == WeightType::F32 ? 4 : 2);
  part.rows = count;
  return part;
}

// The logits in chunks, so that T × V floats are never all held (unless asked): the top k of each
// position and the mean cross-entropy of each next token. Chunks of the vocabulary for every
// position at once, so that the head's weights are read (and packed for the product) once; of
// positions with the whole vocabulary where the head's format cannot be cut by rows. A masked LM's
// head first transforms the states (dense, activation, norm), and its top k is each position's own
// token.
Status ForwardPass::read_out(const Matrix& X, const WeightTensor& norm, const WeightTensor& norm_bias, const std::vector<int>& ids) {
  const TransformerConfig& c = model_.config();
  const Eigen::Index T = X.rows();
  result_.masked_lm = c.masked_lm();
  result_.loss = result_.perplexity = std::numeric_limits<double>::quiet_NaN();
  Matrix H = normalize(X, norm, norm_bias, c.arch->norm, c.norm_eps, c.arch->norm_offset);
  if (auto s = check_finite(H, "the final norm"); !s) return s;
  if (c.masked_lm()) {
    if (!model_.head_dense().present()) return Ok{};  // BertModel: no head, so nothing to predict
    H = linear(H, model_.head_dense(), c.arch->layout);
    add_bias(H, model_.head_dense_bias());
    activate(H, c.head_activation);
    H = normalize(H, model_.head_norm(), model_.head_norm_bias(), c.arch->norm, c.norm_eps);
  }
  if (c.output_scale != 1.0) {
    H *= static_cast<float>(c.output_scale);
    round_activations(H);
  }
  if (options_.keep_logits) result_.logits.resize(T, c.vocab);
  const int k = std::clamp(options_.top_k, 0, c.vocab);
  const Eigen::Index budget = (64 << 20) / 4;  // floats of logits held at a time: 64 MB
  const RowVector bias = model_.lm_head_bias().present() ? read_vector(model_.lm_head_bias()) : RowVector();
  std::vector<PositionReadout> readouts(static_cast<std::size_t>(T));
  // One chunk: logits of rows [row0, row0 + rows) over vocabulary [v0, v0 + cols).
  auto chunk = [&](Eigen::Index row0, Eigen::Index rows, int v0, int cols, const WeightTensor& head) -> Status {
    Matrix L = linear(H.middleRows(row0, rows), head, WeightLayout::OutIn);
    if (bias.size() > 0) {
      L.rowwise() += bias.segment(v0, cols);
      round_activations(L);  // (linear rounded the product already)
    }
    soft_cap(L, c.final_softcap);
    if (auto s = check_finite(L, "the output head"); !s) return s;
    if (options_.keep_logits) result_.logits.block(row0, v0, rows, cols) = L;
    accumulate(L, row0, v0, k, ids, readouts);
    return Ok{};
  };
  const int columns = static_cast<int>(std::clamp<Eigen::Index>(budget / std::max<Eigen::Index>(1, T), 1, c.vocab));
  if (head_rows(model_.lm_head(), 0, 1)) {
    for (int v0 = 0; v0 < c.vocab; v0 += columns) {
      const int cols = std::min(columns, c.vocab - v0);
      if (auto s = chunk(0, T, v0, cols, *head_rows(model_.lm_head(), v0, cols)); !s) return s;
    }
  } else {
    const Eigen::Index rows = std::max<Eigen::Index>(1, budget / c.vocab);
    for (Eigen::Index first = 0; first < T; first += rows)
      if (auto s = chunk(first, std::min(rows, T - first), 0, c.vocab, model_.lm_head()); !s) return s;
  }
  finish_read_out(readouts, ids);
  return Ok{};
}

// The read-outs as the result's top k (with their probabilities) and the loss over the scored
// next tokens.
void ForwardPass::finish_read_out(const std::vector<PositionReadout>& readouts, const std::vector<int>& ids) {
  const TransformerConfig& c = model_.config();
  double loss_sum = 0.0;
  for (std::size_t t = 0; t < readouts.size(); ++t) {
    const PositionReadout& r = readouts[t];
    const double lse = r.max + std::log(r.sum);
    const bool counts = !c.masked_lm() && (options_.scored.empty() || options_.scored[t]);
    if (t + 1 < ids.size() && counts) {
      loss_sum += lse - r.next;
      ++result_.scored;
    }
    std::vector<TokenProbability> top;
    for (const auto& [logit, id] : r.top) top.push_back({id, token_text(model_, id), std::exp(logit - lse)});
    result_.top.push_back(std::move(top));
  }
  if (result_.scored > 0) result_.loss = loss_sum / result_.scored;
  result_.scored_description = options_.scored.empty() ? "" : options_.scored_description;
  result_.perplexity = std::exp(result_.loss);
}

Result<ForwardResult> ForwardPass::run(const std::vector<int>& ids) {
  const auto start = std::chrono::steady_clock::now();
  const TransformerConfig& c = model_.config();
  const PositionIntervention& v = options_.intervention;
  if (auto s = check_request(c, ids, v); !s) return Error{s.error()};
  if (!options_.scored.empty() && options_.scored.size() != ids.size())
    return Error{"the scored predictions do not match the tokens"};
  if (!c.encoder_decoder() && options_.stack != ModelStack::Encoder)
    return Error{"this model has one stack of layers; the decoder's and the cross-attention are an encoder–decoder's (T5)"};
  const int T = static_cast<int>(std::max(ids.size(), options_.decoder_ids.size()));
  const double need = forward_bytes(c, T, options_) + packed_weights_bound(model_.weight_bytes(), model_.dtype());
  if (auto s = check_memory(need, "the forward pass over " + std::to_string(T) + " tokens", "use a shorter sentence"); !s)
    return Error{s.error()};
  result_.ids = ids;
  result_.precision = options_.precision;
  result_.tokens = token_texts(model_, ids);
  result_.stack = options_.stack;
  result_.bidirectional = options_.stack == ModelStack::Encoder && c.bidirectional();
  // What T5 learned about distance, for the views: each stack's bucket table as stored.
  for (auto [table, out] : {std::pair{&model_.relative_bias(), &result_.bucket_bias}, std::pair{&model_.decoder_relative_bias(), &result_.decoder_bucket_bias}})
    if (c.positions == PositionKind::T5 && table->present()) {
      out->resize(c.t5_buckets, c.heads);
      read_rows(*table, 0, c.t5_buckets, out->data());
    }
  backend_ = options_.backend ? options_.backend : &cpu_;
  result_.backend = backend_->name();
  const Bf16Activations bf16(options_.precision == Precision::BF16);
  Matrix X = embed_tokens(model_, ids, v, !c.encoder_decoder());
  round_activations(X);  // BF16: the embeddings' sums and Gemma's scale
  if (auto s = check_finite(X, "the embeddings"); !s) return Error{s.error()};
  per_layer_inputs_ = per_layer_inputs(model_, ids, X);
  // Soft-capped scores (Gemma 2), learned sinks (GPT-OSS), chunks (Llama 4) and streaming attention are the CPU path's alone.
  if (backend_ != &cpu_) {
    const bool chunks = v.chunk.value_or(c.chunk_size) > 0 && !c.chunked.empty();
    const char* why = c.attn_softcap > 0.0 ? "Gemma 2's soft-capped scores" : c.learned_sinks && !v.sinks_off ? "GPT-OSS's learned sinks"
                    : chunks ? "Llama 4's chunked attention" : v.streaming.on() ? "streaming attention"
                    : options_.precision == Precision::BF16 ? "BF16 activations" : nullptr;
    if (why) {
      backend_ = &cpu_;
      result_.backend = cpu_.name() + " (" + why + " run on the CPU)";
    }
  }
  if (c.encoder_decoder() && backend_ != &cpu_) result_.backend += " (cross-attention on the CPU)";
  Stack first = first_stack(static_cast<int>(ids.size()), model_.relative_bias());
  if (auto s = run_stack(first, X, nullptr, 0); !s) return Error{s.error()};
  if (c.encoder_decoder()) {
    const Matrix encoded = normalize(X, model_.final_norm(), {}, c.arch->norm, c.norm_eps);
    if (auto s = run_decoder(encoded); !s) return Error{s.error()};
  } else if (auto s = read_out(X, model_.final_norm(), model_.final_norm_bias(), ids); !s) {
    return Error{s.error()};
  }
  if (options_.progress) options_.progress(1.0);
  result_.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return std::move(result_);
}

}  // namespace

Result<ForwardResult> run_forward(const Checkpoint& model, const std::vector<int>& ids, const ForwardOptions& options) {
  ForwardPass pass(model, options);
  return pass.run(ids);
}

}  // namespace poslab

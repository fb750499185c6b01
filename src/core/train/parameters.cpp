#include "core/train/parameters.hpp"

#include <cmath>

#include "core/random.hpp"

namespace poslab {

template <class S>
template <class Self, class F>
void Params<S>::visit(Self& self, F&& f) {
  const TrainModelConfig& c = self.config_;
  const Eigen::Index d = c.width, ff = c.mlp();
  const auto matrix = [](std::string name, Eigen::Index rows, Eigen::Index cols) {
    return TensorSpec{std::move(name), rows, cols, false, true};
  };
  const auto norm = [d](std::string name) { return TensorSpec{std::move(name), 1, d, true, false}; };
  f(matrix("model.embed_tokens.weight", c.vocab, d), self.embed);
  if (c.positions == PositionKind::Learned) f(matrix("model.embed_positions.weight", c.max_positions, d), self.positions);
  if (c.positions == PositionKind::T5)
    f(TensorSpec{"model.relative_attention_bias.weight", c.t5_buckets, c.heads, false, false}, self.relative_bias);
  for (int l = 0; l < c.layers; ++l) {
    auto& w = self.layers[static_cast<std::size_t>(l)];
    const std::string at = "model.layers." + std::to_string(l) + ".";
    f(norm(at + "input_layernorm.weight"), w.attn_norm);
    f(matrix(at + "self_attn.q_proj.weight", d, d), w.q);
    f(matrix(at + "self_attn.k_proj.weight", d, d), w.k);
    f(matrix(at + "self_attn.v_proj.weight", d, d), w.v);
    f(matrix(at + "self_attn.o_proj.weight", d, d), w.o);
    f(norm(at + "post_attention_layernorm.weight"), w.mlp_norm);
    f(matrix(at + "mlp.gate_proj.weight", ff, d), w.gate);
    f(matrix(at + "mlp.up_proj.weight", ff, d), w.up);
    f(matrix(at + "mlp.down_proj.weight", d, ff), w.down);
  }
  f(norm("model.norm.weight"), self.final_norm);
}

template <class S>
Params<S>::Params(const TrainModelConfig& config) : config_(config) {
  layers.resize(static_cast<std::size_t>(config.layers));
  Eigen::Index total = 0;
  visit(*this, [&](const TensorSpec& s, Tensor<S>&) { total += s.rows * s.cols; });
  memory_.assign(static_cast<std::size_t>(total), S(0));
  Eigen::Index offset = 0;
  visit(*this, [&](const TensorSpec& s, Tensor<S>& t) {
    t = Tensor<S>{memory_.data() + offset, s.rows, s.cols};
    offset += s.rows * s.cols;
  });
}

template <class S>
std::vector<TensorSpec> Params<S>::specs() const {
  std::vector<TensorSpec> out;
  visit(*this, [&](const TensorSpec& s, const Tensor<S>&) { out.push_back(s); });
  return out;
}

template <class S>
Tensor<S>* Params<S>::find(const std::string& name) {
  Tensor<S>* found = nullptr;
  visit(*this, [&](const TensorSpec& s, Tensor<S>& t) {
    if (s.name == name) found = &t;
  });
  return found;
}

template <class S>
const Tensor<S>* Params<S>::find(const std::string& name) const {
  const Tensor<S>* found = nullptr;
  visit(*this, [&](const TensorSpec& s, const Tensor<S>& t) {
    if (s.name == name) found = &t;
  });
  return found;
}

template <class S>
void initialize(Params<S>& p, std::uint64_t seed, double sigma) {
  const double residual_sigma = sigma / std::sqrt(2.0 * p.config().layers);
  std::uint64_t stream = 0;
  // Each tensor draws from its own stream, so that adding a tensor does not shift the others.
  const auto fill = [&](Tensor<S>& t, double s) {
    Rng rng(mix_seed(seed, stream++));
    for (Eigen::Index i = 0; i < t.size(); ++i) t.data[i] = static_cast<S>(s * rng.normal());
  };
  const auto ones = [](Tensor<S>& t) { t.m().setOnes(); };
  fill(p.embed, sigma);
  if (p.positions.data) fill(p.positions, sigma);
  if (p.relative_bias.data) p.relative_bias.m().setZero();
  for (LayerParams<S>& w : p.layers) {
    ones(w.attn_norm);
    fill(w.q, sigma);
    fill(w.k, sigma);
    fill(w.v, sigma);
    fill(w.o, residual_sigma);
    ones(w.mlp_norm);
    fill(w.gate, sigma);
    fill(w.up, sigma);
    fill(w.down, residual_sigma);
  }
  ones(p.final_norm);
}

template class Params<float>;
template class Params<double>;
template void initialize(Params<float>&, std::uint64_t, double);
template void initialize(Params<double>&, std::uint64_t, double);

}  // namespace poslab

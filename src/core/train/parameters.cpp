#include "core/train/parameters.hpp"

#include <cmath>
#include <stdexcept>

#include "base/random.hpp"

namespace poslab {

namespace {

// The training model's tensors: the architecture table's "poslab" row, those this config needs,
// the layer's slots once per layer, in the order Hugging Face saves them.
struct Placed {
  TensorSpec spec;
  TensorRole role;
  int layer;  // -1: the model's own tensor
};

TensorSpec spec_of(const TensorSlot& slot, const TransformerConfig& t, int layer) {
  const Eigen::Index rows = dimension(t, slot.rows), cols = dimension(t, slot.cols);
  const bool vector = slot.cols == Dim::None;
  // AdamW decays matrices and tables; not norms, and not T5's biases (T5 itself does not).
  return TensorSpec{layer_tensor(slot.name, layer), vector ? 1 : rows, vector ? rows : cols, vector,
                    !vector && slot.role != TensorRole::RelativeBias};
}

std::vector<Placed> placed_tensors(const TrainModelConfig& c) {
  const TransformerConfig t = transformer_config(c);
  std::vector<Placed> out;
  const auto add_model_tensors = [&](bool after_layers) {
    for (const TensorSlot& s : t.arch->tensors)
      if (!is_layer_role(s.role) && s.after_layers == after_layers && is_needed(t, s.need))
        out.push_back({spec_of(s, t, 0), s.role, -1});
  };
  add_model_tensors(false);
  for (int l = 0; l < c.layers; ++l)
    for (const TensorSlot& s : t.arch->tensors)
      if (is_layer_role(s.role) && is_needed(t, s.need)) out.push_back({spec_of(s, t, l), s.role, l});
  add_model_tensors(true);
  return out;
}

}  // namespace

template <class S>
template <class Self>
auto& Params<S>::tensor(Self& self, TensorRole role, int layer) {
  if (layer >= 0) {
    auto& w = self.layers[static_cast<std::size_t>(layer)];
    switch (role) {
      case TensorRole::AttnNorm: return w.attn_norm;
      case TensorRole::Q: return w.q;
      case TensorRole::K: return w.k;
      case TensorRole::V: return w.v;
      case TensorRole::O: return w.o;
      case TensorRole::MlpNorm: return w.mlp_norm;
      case TensorRole::Gate: return w.gate;
      case TensorRole::Up: return w.up;
      case TensorRole::Down: return w.down;
      default: break;
    }
  }
  switch (role) {
    case TensorRole::Embed: return self.embed;
    case TensorRole::Positions: return self.positions;
    case TensorRole::RelativeBias: return self.relative_bias;
    case TensorRole::FinalNorm: return self.final_norm;
    default: break;
  }
  throw std::logic_error("the training model has no tensor for this role");
}

template <class S>
template <class Self, class F>
void Params<S>::visit(Self& self, F&& f) {
  for (const Placed& p : placed_tensors(self.config_)) f(p.spec, tensor(self, p.role, p.layer));
}

template <class S>
std::vector<TensorSpec> Params<S>::specs_of(const TrainModelConfig& config) {
  std::vector<TensorSpec> out;
  for (Placed& p : placed_tensors(config)) out.push_back(std::move(p.spec));
  return out;
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

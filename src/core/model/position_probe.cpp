#include "core/model/position_probe.hpp"

#include <cmath>
#include <Eigen/Cholesky>

#include "base/memory.hpp"

namespace poslab {

Result<ProbeScore> probe_positions(const Matrix& features, const std::vector<double>& positions, const std::vector<std::uint8_t>& train) {
  const Eigen::Index n = features.rows(), d = features.cols();
  if (static_cast<std::size_t>(n) != positions.size() || positions.size() != train.size()) return Error{"the probe's rows do not match"};
  std::vector<Eigen::Index> fit, test;
  for (Eigen::Index i = 0; i < n; ++i) (train[static_cast<std::size_t>(i)] ? fit : test).push_back(i);
  if (fit.size() < 2 || test.empty()) return Error{"the probe needs tokens to fit on and tokens to score"};
  // Standardized by the fitting rows; a constant feature carries nothing and is left at 0.
  Eigen::MatrixXd X(static_cast<Eigen::Index>(fit.size()), d), Y(static_cast<Eigen::Index>(test.size()), d);
  for (std::size_t k = 0; k < fit.size(); ++k) X.row(static_cast<Eigen::Index>(k)) = features.row(fit[k]).cast<double>();
  for (std::size_t k = 0; k < test.size(); ++k) Y.row(static_cast<Eigen::Index>(k)) = features.row(test[k]).cast<double>();
  const Eigen::RowVectorXd mean = X.colwise().mean();
  Eigen::RowVectorXd scale = ((X.rowwise() - mean).array().square().colwise().mean()).sqrt();
  for (Eigen::Index j = 0; j < d; ++j) scale(j) = scale(j) > 1e-12 ? 1.0 / scale(j) : 0.0;
  X = (X.rowwise() - mean).array().rowwise() * scale.array();
  Y = (Y.rowwise() - mean).array().rowwise() * scale.array();
  Eigen::VectorXd t(static_cast<Eigen::Index>(fit.size()));
  for (std::size_t k = 0; k < fit.size(); ++k) t(static_cast<Eigen::Index>(k)) = positions[static_cast<std::size_t>(fit[k])];
  const double t_mean = t.mean();
  // Dual ridge: α = (XXᵀ + λI)⁻¹(t − t̄), prediction t̄ + Y·Xᵀα; λ a small share of the kernel's
  // mean diagonal, enough to keep more features than tokens from fitting noise exactly.
  Eigen::MatrixXd K = X * X.transpose();
  const double lambda = 1e-2 * std::max(1e-12, K.diagonal().mean());
  K.diagonal().array() += lambda;
  const Eigen::VectorXd alpha = K.ldlt().solve((t.array() - t_mean).matrix());
  const Eigen::VectorXd predicted = (Y * (X.transpose() * alpha)).array() + t_mean;
  double residual = 0.0, total = 0.0, absolute = 0.0, truth_mean = 0.0;
  for (std::size_t k = 0; k < test.size(); ++k) truth_mean += positions[static_cast<std::size_t>(test[k])];
  truth_mean /= static_cast<double>(test.size());
  for (std::size_t k = 0; k < test.size(); ++k) {
    const double truth = positions[static_cast<std::size_t>(test[k])], error = truth - predicted(static_cast<Eigen::Index>(k));
    residual += error * error;
    total += (truth - truth_mean) * (truth - truth_mean);
    absolute += std::abs(error);
  }
  if (!std::isfinite(residual)) return Error{"the probe's fit is not finite (the residual stream holds NaN or infinity)"};
  return ProbeScore{total > 0.0 ? 1.0 - residual / total : 0.0, absolute / static_cast<double>(test.size())};
}

const std::vector<std::string>& probe_sentences() {
  static const std::vector<std::string> s = {
      "The cat sat on the mat while the dog slept by the warm fire in the kitchen.",
      "Positions tell a transformer where each word stands in the sentence.",
      "In the morning we walked to the river, and by noon the fog had lifted from the hills.",
      "A model without positional encodings still sees order through its causal mask.",
      "She opened the old letter, read the first line twice, and put it back in the drawer.",
      "Rotary embeddings turn each pair of dimensions by an angle that grows with the position.",
      "The train left the station at seven, crossed the bridge and disappeared into the tunnel beyond the town.",
      "Numbers like 3, 14, 159 and 2653 are split into pieces by most tokenizers.",
      "Long contexts need the model to extrapolate beyond the lengths it saw in training.",
      "He planted tomatoes, beans and sunflowers, then watered the garden until the soil was dark.",
      "Attention sinks collect the weight that a head has nowhere else to put.",
      "The committee met on Tuesday to discuss the budget, the schedule and the new building.",
      "Every evening the lighthouse keeper climbed the stairs and lit the lamp above the sea.",
      "Learned position tables cannot say anything about positions they were never trained on.",
      "After the storm the streets were full of branches, leaves and the sound of running water.",
      "A short sentence.",
  };
  return s;
}

Result<PositionProbe> position_probe(const Checkpoint& model, const std::vector<std::string>& sentences, const PositionIntervention& v,
                                     const std::atomic<bool>* cancel, const std::function<void(double)>& progress) {
  if (sentences.size() < 4) return Error{"the position probe needs at least 4 sentences (every other one fits, the rest score)"};
  const TransformerConfig& c = model.config();
  std::vector<std::vector<int>> ids;
  std::size_t tokens = 0;
  for (const std::string& s : sentences) {
    auto t = model_tokens(model, s);
    if (!t) return Error{"sentence " + std::to_string(ids.size() + 1) + ": " + t.error()};
    // A learned table has rows for so many positions: a longer sentence is probed as far as it reaches.
    const int room = c.positions == PositionKind::Learned && !v.positions_off ? c.max_positions - std::max(0, v.position_shift) : 0;
    if (room > 0 && static_cast<int>(t->size()) > room) t->resize(static_cast<std::size_t>(room));
    tokens += t->size();
    ids.push_back(std::move(*t));
  }
  // Every layer's residual stream for every token, held together: refused before it is allocated.
  const double bytes = 4.0 * static_cast<double>(tokens) * c.hidden * c.layers + 8.0 * static_cast<double>(tokens) * static_cast<double>(tokens);
  if (auto s = check_memory(bytes, "the position probe's residual streams (" + std::to_string(tokens) + " tokens × " + std::to_string(c.layers) +
                                       " layers × " + std::to_string(c.hidden) + ")",
                            "probe fewer or shorter sentences");
      !s)
    return Error{s.error()};
  std::vector<Matrix> streams(static_cast<std::size_t>(c.layers), Matrix(static_cast<Eigen::Index>(tokens), c.hidden));
  std::vector<double> positions;
  std::vector<std::uint8_t> train;
  Eigen::Index row = 0;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    ForwardOptions o;
    o.intervention = v;
    o.cancel = cancel;
    o.each_layer = [&](int layer, const Matrix& X) { streams[static_cast<std::size_t>(layer)].middleRows(row, X.rows()) = X; };
    auto r = run_forward(model, ids[k], o);
    if (!r) return Error{r.error()};
    for (std::size_t t = 0; t < ids[k].size(); ++t) {
      positions.push_back(static_cast<double>(t));
      train.push_back(k % 2 == 0 ? 1 : 0);
    }
    row += static_cast<Eigen::Index>(ids[k].size());
    if (progress) progress(0.8 * static_cast<double>(k + 1) / static_cast<double>(ids.size()));
  }
  PositionProbe out;
  out.sentences = static_cast<int>(ids.size());
  for (std::uint8_t t : train) (t ? out.train_tokens : out.test_tokens) += 1;
  for (int l = 0; l < c.layers; ++l) {
    auto score = probe_positions(streams[static_cast<std::size_t>(l)], positions, train);
    if (!score) return Error{"layer " + std::to_string(l) + ": " + score.error()};
    out.layers.push_back(*score);
    if (progress) progress(0.8 + 0.2 * static_cast<double>(l + 1) / c.layers);
  }
  return out;
}

}  // namespace poslab

#include "core/pipeline.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <unordered_map>

#include "core/random.hpp"

namespace poslab {

Projections make_projections(int d, ProjectionKind kind, double sigma, std::uint64_t seed) {
  if (kind == ProjectionKind::Identity) {
    const Matrix I = Matrix::Identity(d, d);
    return {I, I, I, I};
  }
  return {gaussian_matrix(d, d, sigma, mix_seed(seed, 1)), gaussian_matrix(d, d, sigma, mix_seed(seed, 2)),
          gaussian_matrix(d, d, sigma, mix_seed(seed, 3)), gaussian_matrix(d, d, sigma, mix_seed(seed, 4))};
}

Result<PipelineInput> prepare_input(const ModelSettings& s, const EmbeddingTable& table) {
  const int d = table.dim();
  if (d <= 0) return Error{"no embeddings are loaded"};
  if (auto status = validate(s, d); !status) return Error{status.error()};

  PipelineInput in;
  in.tokens = tokenize(s.sentence, table);
  if (in.tokens.empty()) return Error{"the sentence has no tokens: type a few words"};
  const int real = static_cast<int>(in.tokens.size());
  const int T = std::max(real, s.pad_to);
  for (int t = real; t < T; ++t) in.tokens.push_back(Token{"<pad>", -1, false, true});

  Matrix X = Matrix::Zero(T, d);  // T × d
  for (int t = 0; t < real; ++t) {
    const Token& tok = in.tokens[static_cast<std::size_t>(t)];
    X.row(t) = tok.unknown ? RowVector(unknown_token_vector(tok.text, d, table.component_std()).transpose())
                              : RowVector(table.vectors().row(tok.row));
  }
  if (s.encoding == EncodingKind::Sinusoidal) X += sinusoidal_encoding(T, d, s.base);

  const Projections W = make_projections(d, s.projection, s.sigma, s.seed);
  AttentionProblem& p = in.problem;
  p.Xq = std::move(X);
  p.Xkv = p.Xq;
  p.Wq = W.Wq;
  p.Wk = W.Wk;
  p.Wv = W.Wv;
  p.Wo = W.Wo;
  p.heads = s.heads;
  p.causal = s.causal;
  p.key_valid.assign(static_cast<std::size_t>(T), 1);
  for (int t = real; t < T; ++t) p.key_valid[static_cast<std::size_t>(t)] = 0;
  if (s.encoding == EncodingKind::Rope) {
    p.rope.enabled = true;
    p.rope.style = s.rope_style;
    p.rope.thetas = rope_thetas(rotary_width(d / s.heads), s.base);
    p.rope.query_positions.resize(static_cast<std::size_t>(T));
    for (int t = 0; t < T; ++t) p.rope.query_positions[static_cast<std::size_t>(t)] = t;
    p.rope.key_positions = p.rope.query_positions;
  }
  return in;
}

Result<Results> run_pipeline(const ModelSettings& settings, const EmbeddingTable& table,
                             AttentionBackend& backend, bool check_against_cpu) {
  auto prepared = prepare_input(settings, table);
  if (!prepared) return Error{prepared.error()};
  Results r;
  r.tokens = std::move(prepared->tokens);
  r.problem = std::move(prepared->problem);

  const auto start = std::chrono::steady_clock::now();
  auto computed = backend.run(r.problem);
  r.attention_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.backend = backend.name();
  bool on_cpu = dynamic_cast<CpuBackend*>(&backend) != nullptr;
  if (computed) {
    r.attention = std::move(*computed);
    r.device_ms = backend.last_device_ms();
  } else {
    r.notes.push_back(backend.name() + " failed: " + computed.error() + " — computed on the CPU instead.");
    r.attention = solve_cpu(r.problem);
    r.backend = CpuBackend().name();
    on_cpu = true;
  }
  if (check_against_cpu && !on_cpu) {
    const auto cpu_start = std::chrono::steady_clock::now();
    const AttentionOutput reference = solve_cpu(r.problem);
    r.cpu_check_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - cpu_start).count();
    r.max_diff_vs_cpu = max_abs_difference(r.attention, reference);
  }
  return r;
}

OutputComparison compare_outputs(const Matrix& output, int a, int b) {
  OutputComparison c;
  c.a = a;
  c.b = b;
  const Eigen::VectorXd x = output.row(a).cast<double>().transpose();
  const Eigen::VectorXd y = output.row(b).cast<double>().transpose();
  c.max_abs_diff = (x - y).cwiseAbs().maxCoeff();
  c.scale = std::max(x.cwiseAbs().maxCoeff(), y.cwiseAbs().maxCoeff());
  const double norms = x.norm() * y.norm();
  c.cosine = norms > 0.0 ? x.dot(y) / norms : 0.0;
  return c;
}

std::optional<std::pair<int, int>> first_repeated_token(const std::vector<Token>& tokens) {
  std::unordered_map<std::string, int> first_seen;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    if (tokens[t].padding) continue;
    std::string key = tokens[t].text;
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto [it, inserted] = first_seen.emplace(std::move(key), static_cast<int>(t));
    if (!inserted) return std::pair{it->second, static_cast<int>(t)};
  }
  return std::nullopt;
}

}  // namespace poslab

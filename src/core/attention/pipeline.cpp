#include "core/attention/pipeline.hpp"

#include "base/memory.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <unordered_map>

#include "core/encodings/additive.hpp"
#include "core/encodings/bias.hpp"
#include "core/formats/npy.hpp"
#include "base/random.hpp"
#include "core/encodings/rope_nd.hpp"
#include "core/encodings/rope_scaling.hpp"

namespace poslab {

Projections make_projections(int d, ProjectionKind kind, double sigma, std::uint64_t seed) {
  if (kind == ProjectionKind::Identity) {
    const Matrix I = Matrix::Identity(d, d);
    return {I, I, I, I};
  }
  return {gaussian_matrix(d, d, sigma, mix_seed(seed, 1)), gaussian_matrix(d, d, sigma, mix_seed(seed, 2)),
          gaussian_matrix(d, d, sigma, mix_seed(seed, 3)), gaussian_matrix(d, d, sigma, mix_seed(seed, 4))};
}

Matrix share_key_value_heads(const Matrix& W, int heads, int kv_heads) {
  if (kv_heads == heads) return W;
  const int dh = static_cast<int>(W.cols()) / heads;
  const int group = heads / kv_heads;
  Matrix shared(W.rows(), W.cols());
  for (int h = 0; h < heads; ++h) shared.middleCols(h * dh, dh) = W.middleCols((h / group) * dh, dh);
  return shared;
}

namespace {

// The sentence's tokens; the memory tokenizing takes is checked from its length first.
Result<std::vector<Token>> tokens_of(const std::string& sentence, const EmbeddingTable& table, const std::string& what) {
  if (auto fits = check_tokenizing_memory(sentence.size()); !fits) return Error{fits.error()};
  std::vector<std::string> unknown;
  std::vector<Token> tokens = tokenize(sentence, table, &unknown);
  if (tokens.empty()) return Error{no_tokens_message(what, unknown, "type a few words")};
  return tokens;
}

// T × d rows of the table (or derived vectors for unknown words; zeros for padding).
Result<Matrix> embed(const std::vector<Token>& tokens, const EmbeddingTable& table) {
  const int d = table.dim();
  Matrix X = Matrix::Zero(static_cast<Eigen::Index>(tokens.size()), d);  // T × d
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const Token& tok = tokens[t];
    if (tok.padding) continue;
    if (tok.unknown) {
      X.row(static_cast<Eigen::Index>(t)) = unknown_token_vector(tok.text, d, table.component_std()).transpose();
      continue;
    }
    auto row = table.row(tok.row);  // from memory, or read from the model's file
    if (!row) return Error{row.error()};
    X.row(static_cast<Eigen::Index>(t)) = *row;
  }
  return X;
}

// Positions on the W × H grid, row by row; a CLS token first sits at (0, 0) and is not rotated.
Result<std::vector<RopePosition>> grid_positions(const ModelSettings& s, int count) {
  std::vector<RopePosition> positions;
  const int patches = s.grid_width * s.grid_height;
  if (count > patches + (s.cls ? 1 : 0))
    return Error{std::to_string(count) + " tokens do not fit on a " + std::to_string(s.grid_width) + "×" +
                 std::to_string(s.grid_height) + " grid" + (s.cls ? " plus CLS" : "")};
  for (int t = 0; t < count; ++t) {
    const int patch = t - (s.cls ? 1 : 0);
    positions.push_back(patch < 0 ? RopePosition{0, 0} : RopePosition{patch % s.grid_width, patch / s.grid_width});
  }
  return positions;
}

}  // namespace

Result<Matrix> additive_encoding(const ModelSettings& s, int T, int d) {
  switch (s.encoding) {
    case EncodingKind::Integer: return integer_encoding(T, d);
    case EncodingKind::Normalized: return normalized_encoding(T, d, T);
    case EncodingKind::Binary: return binary_encoding(T, d, s.binary_values);
    case EncodingKind::Sinusoidal: return sinusoidal_encoding(T, d, s.base);
    case EncodingKind::Learned: {
      Matrix table;
      if (s.learned_file.empty()) {
        table = learned_table(s.learned_max, d, 1.0, mix_seed(s.seed, 5));
      } else {
        auto loaded = load_npy_matrix(s.learned_file);
        if (!loaded) return Error{loaded.error()};
        if (loaded->cols() != d)
          return Error{s.learned_file + ": the learned table is " + std::to_string(loaded->rows()) + " × " +
                       std::to_string(loaded->cols()) + " but the embeddings are " + std::to_string(d) + " wide"};
        table = std::move(*loaded);
      }
      return learned_encoding(table, T);
    }
    case EncodingKind::None:
    case EncodingKind::Rope: break;
  }
  return Matrix(Matrix::Zero(T, d));
}

Result<RopeSpec> rope_spec(const ModelSettings& s, int heads, int head_dim, int queries, int keys) {
  if (s.encoding != EncodingKind::Rope) return RopeSpec{};
  const int rotary = s.rotary_dim > 0 ? s.rotary_dim : rotary_width(head_dim);
  RopeSpec spec;
  if (s.grid_width > 0) {
    const int quarter = rotary / 4;  // 2-D: a quarter of the rotary width per axis and component
    spec.enabled = true;
    spec.style = s.rope_style;
    spec.pairs = 2 * quarter;
    for (int h = 0; h < heads; ++h) {
      if (s.rope_2d == Rope2d::Axial) {
        const auto theta = axial_thetas(rotary, s.base);  // first half of the pairs: x; second: y
        for (int i = 0; i < quarter; ++i) spec.theta_x.push_back(theta[static_cast<std::size_t>(i)]);
        for (int i = 0; i < quarter; ++i) spec.theta_x.push_back(0.0);
        for (int i = 0; i < quarter; ++i) spec.theta_y.push_back(0.0);
        for (int i = 0; i < quarter; ++i) spec.theta_y.push_back(theta[static_cast<std::size_t>(i)]);
      } else {
        const auto f = mixed_frequencies(rotary, s.base, s.seed, h);  // per-head directions
        spec.theta_x.insert(spec.theta_x.end(), f.fx.begin(), f.fx.begin() + spec.pairs);
        spec.theta_y.insert(spec.theta_y.end(), f.fy.begin(), f.fy.begin() + spec.pairs);
      }
    }
    auto qpos = grid_positions(s, queries);
    if (!qpos) return Error{qpos.error()};
    auto kpos = grid_positions(s, keys);
    if (!kpos) return Error{kpos.error()};
    spec.query_positions = std::move(*qpos);
    spec.key_positions = std::move(*kpos);
    return spec;
  }
  const RopeFrequencies freq = rope_frequencies(rotary, s.base, s.scaling, std::max(queries, keys));
  std::vector<double> thetas = freq.thetas;
  // p-RoPE: the lowest-frequency fraction 1 − p of the pairs does not rotate (θ = 0).
  const auto rotating = static_cast<std::size_t>(std::lround(s.rope_fraction * static_cast<double>(thetas.size())));
  for (std::size_t i = rotating; i < thetas.size(); ++i) thetas[i] = 0.0;
  spec = rope_1d(thetas, heads, s.rope_style, queries, keys);
  spec.scale = freq.attention_scale;
  if (s.cls)  // the CLS token is not rotated; the others count from 0
    for (auto* positions : {&spec.query_positions, &spec.key_positions})
      for (std::size_t t = 0; t < positions->size(); ++t) (*positions)[t].x = std::max(0, static_cast<int>(t) - 1);
  return spec;
}

Matrix relative_bias(const ModelSettings& s, int heads, int Tq, int Tk) {
  if (s.bias != BiasKind::Alibi && s.bias != BiasKind::T5) return {};
  Matrix bias(heads, Tq + Tk - 1);  // column o + T_q − 1 holds the bias for key − query offset o
  const auto slopes = alibi_slopes(heads);
  const Matrix t5_table = t5_bias_table(heads, s.buckets, 1.0, mix_seed(s.seed, 6));
  for (int h = 0; h < heads; ++h)
    for (int o = -(Tq - 1); o <= Tk - 1; ++o) {
      float b = 0.0f;
      if (s.bias == BiasKind::Alibi) {
        // Causal form −m·(i − j) for j ≤ i (future keys are masked anyway); symmetric −m·|i − j|.
        const double m = slopes[static_cast<std::size_t>(h)];
        b = static_cast<float>(s.causal ? (o <= 0 ? m * o : 0.0) : -m * std::abs(o));
      } else {
        b = t5_table(h, t5_bucket(o, !s.causal, s.buckets, s.max_distance));
      }
      bias(h, o + Tq - 1) = b;
    }
  return bias;
}

// The projections are d × d: 20 000-dimensional rows take 1.6 GB each, and the problem holds eight
// of them (W_q, W_k, W_v, W_o, their copies shared across key/value heads); then the T × T_k
// scores and weights of each head, twice for the CPU check.
Status check_pipeline_memory(const ModelSettings& s, int d, int T, int Tk) {
  const double dd = static_cast<double>(d) * d, td = static_cast<double>(T + Tk) * d;
  const double matrices = 4.0 * s.heads * static_cast<double>(T) * Tk;
  const double need = 4.0 * (8.0 * dd + 6.0 * td + matrices);
  // The advice names what takes most of it: the heads' T × T matrices, or the d × d projections.
  const std::string lower = matrices >= 8.0 * dd ? "use fewer heads or a shorter sentence"
                                                 : "use embeddings with fewer dimensions or a shorter sentence";
  return check_memory(need, "attention over " + std::to_string(d) + "-dimensional embeddings for " + std::to_string(T) + " tokens",
                      lower);
}

Result<PipelineInput> prepare_input(const ModelSettings& s, const EmbeddingTable& table) {
  const int d = table.dim();
  if (d <= 0) return Error{"no embeddings are loaded"};
  if (auto status = validate(s, d); !status) return Error{status.error()};
  const bool cross = !s.cross_sentence.empty();
  if (cross && s.causal) return Error{"cross-attention takes no causal mask: keys come from another sentence"};

  PipelineInput in;
  auto tokens = tokens_of(s.sentence, table, "sentence");
  if (!tokens) return Error{tokens.error()};
  in.tokens = std::move(*tokens);
  const int real = static_cast<int>(in.tokens.size());
  const int T = std::max(real, s.pad_to);
  for (int t = real; t < T; ++t) in.tokens.push_back(Token{"<pad>", -1, false, true});
  if (cross) {
    auto keys = tokens_of(s.cross_sentence, table, "cross-attention sentence");
    if (!keys) return Error{keys.error()};
    in.key_tokens = std::move(*keys);
  } else {
    in.key_tokens = in.tokens;
  }
  const int Tk = static_cast<int>(in.key_tokens.size());
  if (auto fits = check_pipeline_memory(s, d, T, Tk); !fits) return Error{fits.error()};

  auto embedded = embed(in.tokens, table);  // T × d
  if (!embedded) return Error{embedded.error()};
  Matrix X = std::move(*embedded);
  auto pe = additive_encoding(s, T, d);
  if (!pe) return Error{pe.error()};
  X += *pe;
  Matrix Xkv = X;
  if (cross) {
    auto keys = embed(in.key_tokens, table);  // T_k × d
    if (!keys) return Error{keys.error()};
    Xkv = std::move(*keys);
    auto pe_keys = additive_encoding(s, Tk, d);
    if (!pe_keys) return Error{pe_keys.error()};
    Xkv += *pe_keys;
  }

  const Projections W = make_projections(d, s.projection, s.sigma, s.seed);
  AttentionProblem& p = in.problem;
  p.Xq = std::move(X);
  p.Xkv = std::move(Xkv);
  p.Wq = W.Wq;
  // With mixed 2-D RoPE each query head has its own frequencies, and a shared key is rotated by
  // the frequencies of the head that reads it; 1-D and axial RoPE rotate every head alike.
  p.Wk = share_key_value_heads(W.Wk, s.heads, key_value_heads(s));
  p.Wv = share_key_value_heads(W.Wv, s.heads, key_value_heads(s));
  p.Wo = W.Wo;
  p.heads = s.heads;
  p.causal = s.causal;
  p.key_valid.assign(static_cast<std::size_t>(Tk), 1);
  for (int t = 0; t < Tk; ++t)
    if (in.key_tokens[static_cast<std::size_t>(t)].padding) p.key_valid[static_cast<std::size_t>(t)] = 0;
  auto rope = rope_spec(s, s.heads, d / s.heads, T, Tk);
  if (!rope) return Error{rope.error()};
  p.rope = std::move(*rope);
  p.relative_bias = relative_bias(s, s.heads, T, Tk);
  if (s.bias == BiasKind::Shaw) p.shaw = shaw_tables(s.clip, d / s.heads, 0.5, mix_seed(s.seed, 7));
  return in;
}

std::optional<std::string> missing_words_note(const std::vector<Token>& tokens, const EmbeddingTable& table) {
  int words = 0, missing = 0;
  for (const Token& t : tokens) {
    if (t.padding) continue;
    ++words;
    missing += t.unknown ? 1 : 0;
  }
  if (words == 0 || 2 * missing <= words) return std::nullopt;
  // A .npy or .safetensors table without a vocabulary names its rows "0", "1", …: typed words
  // are then never found, and would silently all get random vectors.
  return std::to_string(missing) + " of the sentence's " + std::to_string(words) + " words are not in the vocabulary of " +
         table.source() + " and get random vectors" +
         (table.size() > 0 && table.word(0) == "0" ? " (its rows are token ids: give its vocabulary with --vocab FILE, or open the model folder with its tokenizer.json)"
                                                   : "");
}

Result<Results> run_pipeline(const ModelSettings& settings, const EmbeddingTable& table,
                             AttentionBackend& backend, bool check_against_cpu, const PipelineControl& control) {
  auto prepared = prepare_input(settings, table);
  if (!prepared) return Error{prepared.error()};
  if (control.cancelled()) return Error{kCancelled};
  control.report(0.1);
  Results r;
  r.tokens = std::move(prepared->tokens);
  r.key_tokens = std::move(prepared->key_tokens);
  r.problem = std::move(prepared->problem);
  r.problem.keep = control.keep;
  if (auto note = missing_words_note(r.tokens, table)) r.notes.push_back(*note);

  const auto start = std::chrono::steady_clock::now();
  auto computed = backend.run(r.problem);
  r.attention_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.backend = backend.name();
  bool on_cpu = dynamic_cast<CpuBackend*>(&backend) != nullptr;
  if (computed) {
    r.attention = std::move(*computed);
    r.device_ms = backend.last_device_ms();
    r.device_run = backend.last_run();
  } else {
    r.notes.push_back(backend.name() + " failed: " + computed.error() + " — computed on the CPU instead.");
    r.attention = solve_cpu(r.problem);
    r.backend = CpuBackend().name();
    on_cpu = true;
  }
  if (control.cancelled()) return Error{kCancelled};
  control.report(check_against_cpu && !on_cpu ? 0.6 : 1.0);
  if (check_against_cpu && !on_cpu) {
    const auto cpu_start = std::chrono::steady_clock::now();
    const AttentionOutput reference = solve_cpu(r.problem);
    r.cpu_check_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - cpu_start).count();
    r.max_diff_vs_cpu = max_abs_difference(r.attention, reference);
    control.report(1.0);
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

std::string explain_outputs(const OutputComparison& c, const std::vector<Token>& tokens, EncodingKind encoding,
                            bool causal) {
  const auto lower = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  std::optional<std::string> only;
  bool one_word = true;
  for (const Token& t : tokens) {
    if (t.padding) continue;
    if (!only) only = lower(t.text);
    else one_word = one_word && lower(t.text) == *only;
  }
  const bool added = encoding != EncodingKind::None && encoding != EncodingKind::Rope;
  if (c.identical() && one_word && !added)
    return "identical (to float precision): every token is the same word, so every value vector is the same and any "
           "weighting of them gives the same output, whatever the positions or the mask";
  if (c.identical() && encoding == EncodingKind::None && !causal)
    return "identical (to float precision): without positions and without a causal mask, attention cannot tell the "
           "two apart";
  if (c.identical()) return "identical (to float precision)";
  if (encoding == EncodingKind::None && causal) return "different: the causal mask shows each a different prefix";
  return "different: positions make the two occurrences distinguishable";
}

}  // namespace poslab

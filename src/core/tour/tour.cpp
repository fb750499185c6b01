#include "core/tour/tour.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/encodings/additive.hpp"
#include "core/encodings/bias.hpp"
#include "core/attention/dog.hpp"
#include "core/encodings/encodings.hpp"
#include "core/attention/pipeline.hpp"
#include "base/random.hpp"
#include "core/encodings/rope_image.hpp"
#include "core/encodings/rope_plane.hpp"
#include "core/encodings/rope_scaling.hpp"
#include "core/encodings/shift.hpp"
#include "core/formats/tokenizer.hpp"
#include "core/encodings/trajectory.hpp"

namespace poslab {

namespace {

constexpr const char* kDogSentence = "The dog chased another dog";

// The measured line of step `step` (0-based) in `language`, with the numbers filled in.
template <typename... Args>
std::string measured(Language language, int step, Args... args) {
  const char* fmt = tour_measured_formats(language)[static_cast<std::size_t>(step)].c_str();
  const int size = std::snprintf(nullptr, 0, fmt, args...);
  if (size <= 0) return {};
  std::string out(static_cast<std::size_t>(size) + 1, '\0');
  std::snprintf(out.data(), out.size(), fmt, args...);
  out.pop_back();
  return out;
}

// A state with nothing but the step's subject: no mask, no bias, no padding, one sentence.
void plain(State& s) {
  s.model.causal = false;
  s.model.bias = BiasKind::None;
  s.model.pad_to = 0;
  s.model.cross_sentence.clear();
  s.model.grid_width = s.model.grid_height = 0;
  s.model.cls = false;
}

// The sentence's embeddings as loaded (no encoding): T × d.
Result<Matrix> sentence_embeddings(const ModelSettings& m, const EmbeddingTable& table) {
  ModelSettings none = m;
  none.encoding = EncodingKind::None;
  none.pad_to = 0;
  none.cross_sentence.clear();
  auto input = prepare_input(none, table);
  if (!input) return Error{input.error()};
  return input->problem.Xq;
}

std::vector<double> to_double(const Eigen::RowVectorXf& v) {
  std::vector<double> out(static_cast<std::size_t>(v.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) out[static_cast<std::size_t>(i)] = v(i);
  return out;
}

// ---- 1. The problem: permutation equivariance ----------------------------------------------
void preset_problem(State& s) {
  plain(s);
  s.model.sentence = kDogSentence;
  s.model.encoding = EncodingKind::None;
}
TourCheck check_problem(const State& s, const EmbeddingTable& table, Language language) {
  auto cases = dog_cases(s.model, table);
  if (!cases) return {false, cases.error()};
  auto shuffled = permutation_check(s.model, table, 1);
  if (!shuffled) return {false, shuffled.error()};
  const OutputComparison& c = cases->front().comparison;
  const bool reshuffled = shuffled->max_abs_diff_none <= 1e-5 * shuffled->scale;
  return {c.identical() && reshuffled,
          measured(language, 0, c.max_abs_diff, c.cosine,
                 shuffled->max_abs_diff_none)};
}

// ---- 2. The five properties ------------------------------------------------------------------
void preset_properties(State& s) {
  plain(s);
  s.model.encoding = EncodingKind::Sinusoidal;
}
TourCheck check_properties(const State& s, const EmbeddingTable& table, Language language) {
  const int d = table.dim() - table.dim() % 2;
  const double base = s.model.base;
  // Pr1: the code of position 5 does not depend on the sequence length.
  const double pr1 = (sinusoidal_encoding(10, d, base).row(5) - sinusoidal_encoding(10000, d, base).row(5)).cwiseAbs().maxCoeff();
  // Pr2: PE(p + k) is a fixed linear map of PE(p).
  double pr2 = 0.0;
  for (const ShiftPair& pair : shift_check(d, base, 3, 512)) pr2 = std::max(pr2, pair.max_residual);
  // Pr3: a RoPE score at distance 5 is the same at position 0 and far beyond any training length.
  Rng rng(mix_seed(s.model.seed, 41));
  std::vector<double> q(64), k(64);
  for (double& x : q) x = rng.normal();
  for (double& x : k) x = rng.normal();
  const auto thetas = rope_thetas(64, base);
  const double pr3 = std::abs(rope_score(q, k, thetas, 0, 5) - rope_score(q, k, thetas, 50000, 50005));
  // Pr4: the table is the formula: sin(p·θᵢ), computed here independently.
  const Matrix pe = sinusoidal_encoding(64, d, base);
  double pr4 = 0.0;
  for (int p = 0; p < 64; ++p)
    for (int i = 0; i < d / 2; ++i)
      pr4 = std::max(pr4, std::abs(pe(p, 2 * i) - std::sin(p * std::pow(base, -2.0 * i / d))));
  // Pr5: on a patch grid, axial 2-D RoPE scores are f(Δx) + g(Δy).
  const Matrix axial = rope_image_scores(8, 8, 0, 0, Rope2d::Axial, 64, 100.0, s.model.seed);
  double pr5 = 0.0;
  for (int y = 1; y < 8; ++y)
    for (int x = 1; x < 8; ++x) pr5 = std::max(pr5, static_cast<double>(std::abs(axial(y, x) - axial(y, 0) - axial(0, x) + axial(0, 0))));
  const bool pass = pr1 <= 1e-7 && pr2 <= 1e-5 && pr3 <= 1e-9 && pr4 <= 1e-6 && pr5 <= 1e-3;
  return {pass, measured(language, 1, pr1, pr2, pr3, pr4, pr5)};
}

// ---- 3. Integer positions --------------------------------------------------------------------
void preset_integer(State& s) {
  plain(s);
  s.model.encoding = EncodingKind::Integer;
}
TourCheck check_integer(const State& s, const EmbeddingTable& table, Language language) {
  auto x = sentence_embeddings(s.model, table);
  if (!x) return {false, x.error()};
  const int T = static_cast<int>(x->rows()), d = static_cast<int>(x->cols());
  double mean = 0.0;
  for (int t = 0; t < T; ++t) mean += x->row(t).cast<double>().norm() / T;
  const double pe = integer_encoding(T, d).row(T - 1).cast<double>().norm();
  return {pe > 2.0 * mean, measured(language, 2, T - 1, pe, mean, pe / mean)};
}

// ---- 4. Normalized positions -----------------------------------------------------------------
void preset_normalized(State& s) {
  plain(s);
  s.model.encoding = EncodingKind::Normalized;
}
TourCheck check_normalized(const State&, const EmbeddingTable& table, Language language) {
  const int d = table.dim();
  const double five = normalized_encoding(5, d, 5)(2, 0), ten = normalized_encoding(10, d, 10)(2, 0);
  return {std::abs(five - ten) > 0.1, measured(language, 3, five, ten)};
}

// ---- 5. Binary positions ---------------------------------------------------------------------
void preset_binary(State& s) {
  plain(s);
  s.model.encoding = EncodingKind::Binary;
  s.model.binary_values = BinaryValues::ZeroOne;
  s.view.trajectory_positions = 64;
  s.view.trajectory_plane = TrajectoryPlane::Pca;
}
TourCheck check_binary(const State& s, const EmbeddingTable& table, Language language) {
  const int d = table.dim();
  const Matrix pe = binary_encoding(253, d, BinaryValues::ZeroOne);
  std::string bits;
  for (int j = 7; j >= 0; --j) bits += pe(252, j) > 0.5f ? '1' : '0';
  int flips = 0;
  for (int p = 1; p < 64; ++p) flips += pe(p, 0) != pe(p - 1, 0);
  auto t = trajectory(Matrix::Zero(1, d), binary_encoding(s.view.trajectory_positions, d, BinaryValues::ZeroOne),
                      TrajectoryPlane::Pca, 0, 0);
  if (!t) return {false, t.error()};
  const auto [lo, hi] = std::minmax_element(t->steps.begin(), t->steps.end());
  return {bits == "11111100" && flips == 63 && *hi >= 2.0 * *lo, measured(language, 4, bits.c_str(), flips, *lo, *hi)};
}

// ---- 6. The sinusoid -------------------------------------------------------------------------
void preset_sinusoid(State& s) {
  plain(s);
  s.model.encoding = EncodingKind::Sinusoidal;
}
TourCheck check_sinusoid(const State& s, const EmbeddingTable& table, Language language) {
  const int d = table.dim() - table.dim() % 2;
  auto t = trajectory(Matrix::Zero(1, d), sinusoidal_encoding(256, d, s.model.base), TrajectoryPlane::Pca, 0, 0);
  if (!t) return {false, t.error()};
  const auto [lo, hi] = std::minmax_element(t->steps.begin(), t->steps.end());
  return {*hi - *lo <= 1e-6 * *hi, measured(language, 5, *lo, *hi)};
}

// ---- 7. The shift matrix ---------------------------------------------------------------------
void preset_shift(State& s) {
  plain(s);
  s.model.encoding = EncodingKind::Sinusoidal;
  s.view.shift_k = 3;
}
TourCheck check_shift(const State& s, const EmbeddingTable& table, Language language) {
  const int d = table.dim() - table.dim() % 2;
  const auto pairs = shift_check(d, s.model.base, s.view.shift_k, 512);
  double residual = 0.0, worst_det = 0.0;
  for (const ShiftPair& p : pairs) {
    residual = std::max(residual, p.max_residual);
    worst_det = std::max(worst_det, std::abs(p.matrix[0] * p.matrix[3] - p.matrix[1] * p.matrix[2] - 1.0));
  }
  // M_k applied to (1, 0) of pair 0: (cos ωk, −sin ωk), below the x axis for 0 < ωk < π: clockwise.
  const auto& m = pairs.front().matrix;
  const double x = m[0], y = m[2];
  const bool clockwise = std::sin(pairs.front().omega * s.view.shift_k) > 0 ? y < 0 : y >= 0;
  return {residual <= 1e-5 && worst_det <= 1e-12 && clockwise,
          measured(language, 6,
                 s.view.shift_k, residual, std::max(worst_det, 1e-16), x, y)};
}

// ---- 8. Absolute versus relative -------------------------------------------------------------
void preset_relative(State& s) {
  plain(s);
  s.model.sentence = kDogSentence;
  s.model.encoding = EncodingKind::Rope;
}
TourCheck check_relative(const State& s, const EmbeddingTable& table, Language language) {
  auto x = sentence_embeddings(s.model, table);
  if (!x) return {false, x.error()};
  if (x->rows() < 3) return {false, "needs a sentence of at least three tokens"};
  const int d = static_cast<int>(x->cols());
  const int heads = std::max(1, s.model.heads), dh = d / heads;
  const Projections w = make_projections(d, s.model.projection, s.model.sigma, s.model.seed);
  // Head 0: "chased" (token 2) asks, "dog" (token 1) answers.
  const Eigen::RowVectorXf q = (x->row(2) * w.Wq).leftCols(dh), k = (x->row(1) * w.Wk).leftCols(dh);
  const auto thetas = rope_thetas(dh - dh % 2, s.model.base);
  const double rope_here = rope_score(to_double(q), to_double(k), thetas, 2, 1);
  const double rope_moved = rope_score(to_double(q), to_double(k), thetas, 102, 101);
  const Matrix pe = sinusoidal_encoding(103, d - d % 2, s.model.base);
  Matrix pe_full = Matrix::Zero(103, d);
  pe_full.leftCols(pe.cols()) = pe;
  auto added = [&](int m, int n) {
    const Eigen::RowVectorXf qa = ((x->row(2) + pe_full.row(m)) * w.Wq).leftCols(dh);
    const Eigen::RowVectorXf ka = ((x->row(1) + pe_full.row(n)) * w.Wk).leftCols(dh);
    return static_cast<double>(qa.dot(ka));
  };
  const double sin_here = added(2, 1), sin_moved = added(102, 101);
  const double scale = std::max({std::abs(rope_here), std::abs(sin_here), 1e-12});
  return {std::abs(rope_here - rope_moved) <= 1e-9 * std::max(1.0, scale) && std::abs(sin_here - sin_moved) > 1e-3 * scale,
          measured(language, 7, rope_here, rope_moved,
                 sin_here, sin_moved)};
}

// ---- 9. Why rotate ---------------------------------------------------------------------------
void preset_norms(State& s) {
  plain(s);
  s.model.encoding = EncodingKind::Rope;
}
TourCheck check_norms(const State& s, const EmbeddingTable& table, Language language) {
  auto curves = added_and_rotated_norms(s.model, table, 64);
  if (!curves) return {false, curves.error()};
  const auto [lo, hi] = std::minmax_element(curves->added.begin(), curves->added.end());
  double rotated = 0.0;
  for (double r : curves->rotated) rotated = std::max(rotated, std::abs(r - curves->norm));
  return {*hi - *lo > 0.1 && rotated <= 1e-5 * curves->norm,
          measured(language, 8, curves->norm, *lo,
                 *hi, rotated)};
}

// ---- 10. RoPE --------------------------------------------------------------------------------
void preset_rope(State& s) {
  plain(s);
  s.model.encoding = EncodingKind::Rope;
  s.model.rope_style = RopeStyle::Interleaved;
}
TourCheck check_rope(const State& s, const EmbeddingTable&, Language language) {
  constexpr int dh = 64;
  Rng rng(mix_seed(s.model.seed, 43));
  std::vector<double> q(dh), k(dh);
  for (double& x : q) x = rng.normal();
  for (double& x : k) x = rng.normal();
  const auto thetas = rope_thetas(dh, s.model.base);
  // The block-diagonal matrix R_p, built entry by entry, against the element-wise form.
  const int p = 7;
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(dh, dh);
  for (int i = 0; i < dh / 2; ++i) {
    const double c = std::cos(p * thetas[static_cast<std::size_t>(i)]), sn = std::sin(p * thetas[static_cast<std::size_t>(i)]);
    R(2 * i, 2 * i) = c, R(2 * i, 2 * i + 1) = -sn, R(2 * i + 1, 2 * i) = sn, R(2 * i + 1, 2 * i + 1) = c;
  }
  const Eigen::VectorXd block = R * Eigen::Map<const Eigen::VectorXd>(q.data(), dh);
  Matrix elementwise(1, dh);
  for (int j = 0; j < dh; ++j) elementwise(0, j) = static_cast<float>(q[static_cast<std::size_t>(j)]);
  const int position[] = {p};
  apply_rope(elementwise, position, thetas, RopeStyle::Interleaved);
  const double forms = (block.transpose() - elementwise.cast<double>()).cwiseAbs().maxCoeff();
  // The score against n − m, for three m.
  double spread = 0.0;
  for (int delta = -32; delta <= 32; ++delta) {
    const double at0 = rope_score(q, k, thetas, 40, 40 + delta);
    for (int m : {0, 25, 40 + s.view.rope_m})
      if (m + delta >= 0) spread = std::max(spread, std::abs(rope_score(q, k, thetas, m, m + delta) - at0));
  }
  return {forms <= 1e-5 && spread <= 1e-9,
          measured(language, 9, forms, spread)};
}

// ---- 11. n-D RoPE ----------------------------------------------------------------------------
void preset_nd(State& s) {
  plain(s);
  s.view.image_width = s.view.image_height = 14;
  s.view.patch_x = s.view.patch_y = 7;
}
TourCheck check_nd(const State& s, const EmbeddingTable&, Language language) {
  constexpr int W = 14, dh = 64;
  const Matrix axial = rope_image_scores(W, W, 7, 7, Rope2d::Axial, dh, 100.0, s.model.seed);
  const double right = axial(7, 8), down = axial(8, 7);
  // One angle from x + y: every patch holds the same vector, rotated as a 1-D position x + y —
  // the pairing the seed calls wrong.
  Rng rng(mix_seed(s.model.seed, 21));
  Matrix joint(W * W, dh);
  for (int j = 0; j < dh; ++j) joint(0, j) = static_cast<float>(rng.normal());
  joint = joint.row(0).replicate(W * W, 1).eval();
  std::vector<int> positions;
  for (int t = 0; t < W * W; ++t) positions.push_back(t % W + t / W);
  apply_rope(joint, positions, rope_thetas(dh, 100.0), RopeStyle::Interleaved);
  const Eigen::VectorXf from = joint.row(7 * W + 7).transpose();
  const double joint_right = joint.row(7 * W + 8).dot(from) / std::sqrt(static_cast<float>(dh));
  const double joint_down = joint.row(8 * W + 7).dot(from) / std::sqrt(static_cast<float>(dh));
  // Axial scores depend on the offset only: the map from (3, 3) is the map from (7, 7) moved.
  const Matrix moved = rope_image_scores(W, W, 3, 3, Rope2d::Axial, dh, 100.0, s.model.seed);
  double offset_only = 0.0;
  for (int y = 0; y + 4 < W; ++y)
    for (int x = 0; x + 4 < W; ++x) offset_only = std::max(offset_only, static_cast<double>(std::abs(moved(y, x) - axial(y + 4, x + 4))));
  return {std::abs(right - down) > 1e-3 && std::abs(joint_right - joint_down) <= 1e-6 * std::abs(joint_right) && offset_only <= 1e-4,
          measured(language, 10, right, down,
                 joint_right, joint_down, std::max(offset_only, 1e-16))};
}

// ---- 12. Beyond ------------------------------------------------------------------------------
void preset_beyond(State& s) {
  plain(s);
  s.model.encoding = EncodingKind::Rope;
  s.model.base = 500000.0;
  s.model.scaling.type = RopeScalingType::Llama3;
  s.model.scaling.factor = 32.0;
  s.model.scaling.original_max_position = 8192;
  s.model.scaling.low_freq_factor = 1.0;
  s.model.scaling.high_freq_factor = 4.0;
}
TourCheck check_beyond(const State&, const EmbeddingTable&, Language language) {
  auto yes_no = [language](bool b) { return tour_word(language, b ? 8 : 9).c_str(); };
  const auto slopes = alibi_slopes(8);
  bool alibi = slopes.size() == 8;
  for (std::size_t h = 0; alibi && h < 8; ++h) alibi = slopes[h] == std::ldexp(1.0, -static_cast<int>(h) - 1);
  bool monotone = true;
  int last = t5_bucket(0, false, 32, 128);
  for (int distance = 1; distance <= 400; ++distance) {
    const int b = t5_bucket(-distance, false, 32, 128);  // causal: keys behind the query
    monotone = monotone && b >= last;
    last = b;
  }
  const bool saturates = t5_bucket(-128, false, 32, 128) == t5_bucket(-400, false, 32, 128);
  RopeScaling llama3;
  llama3.type = RopeScalingType::Llama3;
  llama3.factor = 32.0;
  llama3.original_max_position = 8192;
  const auto plain_thetas = rope_thetas(64, 500000.0);
  const auto scaled = rope_frequencies(64, 500000.0, llama3, 8192).thetas;
  const double high = std::abs(scaled.front() / plain_thetas.front() - 1.0);
  const double low = std::abs(scaled.back() * 32.0 / plain_thetas.back() - 1.0);
  ModelSettings p_rope;
  p_rope.rope_fraction = 0.75;
  auto spec = rope_spec(p_rope, 1, 64, 4, 4);
  int still = 0;
  if (spec)
    for (double t : spec->theta_x) still += t == 0.0;
  return {alibi && monotone && saturates && high <= 1e-12 && low <= 1e-12 && still == 8,
          measured(language, 11,
                 yes_no(alibi), yes_no(monotone), yes_no(saturates), scaled.front() / plain_thetas.front(),
                 plain_thetas.back() / scaled.back(), still)};
}

}  // namespace

const std::vector<TourStep>& tour_steps() {
  static const std::vector<TourStep> steps{
      {"dog", preset_problem, check_problem},
      {"properties", preset_properties, check_properties},
      {"magnitude", preset_integer, check_integer},
      {"normalized", preset_normalized, check_normalized},
      {"trajectory", preset_binary, check_binary},
      {"patterns", preset_sinusoid, check_sinusoid},
      {"shift", preset_shift, check_shift},
      {"relative", preset_relative, check_relative},
      {"norms", preset_norms, check_norms},
      {"rope2d", preset_rope, check_rope},
      {"rope-image", preset_nd, check_nd},
      {"frequencies", preset_beyond, check_beyond},
  };
  return steps;
}

Result<NormCurves> added_and_rotated_norms(const ModelSettings& settings, const EmbeddingTable& table, int positions) {
  auto x = sentence_embeddings(settings, table);
  if (!x) return Error{x.error()};
  const int d = static_cast<int>(x->cols()) - static_cast<int>(x->cols()) % 2;
  const int row = x->rows() > 1 ? 1 : 0;
  const Matrix v = x->row(row).leftCols(d);
  const Matrix pe = sinusoidal_encoding(positions, d, settings.base);
  const auto thetas = rope_thetas(d, settings.base);
  NormCurves curves;
  curves.token = tokenize(settings.sentence, table)[static_cast<std::size_t>(row)].text;
  curves.norm = v.cast<double>().norm();
  for (int p = 0; p < positions; ++p) {
    curves.added.push_back((v + pe.row(p)).cast<double>().norm());
    Matrix turned = v;
    const int position[] = {p};
    apply_rope(turned, position, thetas, RopeStyle::Interleaved);
    curves.rotated.push_back(turned.cast<double>().norm());
  }
  return curves;
}

State tour_state(int step, State start) {
  const auto& steps = tour_steps();
  step = std::clamp(step, 0, static_cast<int>(steps.size()) - 1);
  for (int k = 0; k <= step; ++k) steps[static_cast<std::size_t>(k)].preset(start);
  return start;
}

const std::string& tour_property(Language language, int n) {
  static const std::vector<std::string> en{
      "Pr1 · a unique code per position, the same in every sequence length",
      "Pr2 · a linear relation between positions: PE(p + k) from PE(p)",
      "Pr3 · generalises to sequences longer than in training",
      "Pr4 · made by a deterministic process the model can learn",
      "Pr5 · extends to more dimensions (images, video)"};
  static const std::vector<std::string> ja{
      "特性1 · 各位置に対する一意のエンコーディング(シーケンス間で一貫)",
      "特性2 · エンコードされた位置間の線形関係:PE(p) から PE(p + k)",
      "特性3 · 学習時に遭遇したよりも長いシーケンスへの一般化",
      "特性4 · モデルが学習可能な決定論的プロセスによる生成",
      "特性5 · 複数次元への拡張可能性(画像など)"};
  const auto& list = language == Language::Ja ? ja : en;
  return list[static_cast<std::size_t>(std::clamp(n, 0, 4))];
}

const std::string& tour_property_test(Language language, int n) {
  static const std::vector<std::string> en{"→ steps 4 and 6: normalized against sinusoidal codes",
                                           "→ step 7: the shift view, M_k", "→ step 10: RoPE scores depend on n − m at any m",
                                           "→ step 6: the sinusoid is a formula", "→ step 11: the rope-image view"};
  static const std::vector<std::string> ja{"→ ステップ4と6:正規化と正弦波のエンコーディング",
                                           "→ ステップ7:シフトのビュー、M_k", "→ ステップ10:RoPEのスコアはどのmでもn − mだけで決まる",
                                           "→ ステップ6:正弦波は数式で決まる", "→ ステップ11:rope-imageのビュー"};
  const auto& list = language == Language::Ja ? ja : en;
  return list[static_cast<std::size_t>(std::clamp(n, 0, 4))];
}

const std::string& tour_word(Language language, int index) {
  static const std::vector<std::string> en{"◀ Previous", "Next ▶", "Step", "Live check", "pass", "fail",
                                           "Leave the tour", "English", "yes", "no",
                                           "(← → keys)", "Play the article's animation"};
  static const std::vector<std::string> ja{"◀ 前へ", "次へ ▶", "ステップ", "ライブチェック", "合格", "不合格",
                                           "ツアーを終える", "日本語", "はい", "いいえ",
                                           "(← → キー)", "記事のアニメーションを再生"};
  const auto& words = language == Language::Ja ? ja : en;
  return words[static_cast<std::size_t>(std::clamp(index, 0, static_cast<int>(words.size()) - 1))];
}

std::string tour_japanese_text() {
  std::string text;
  for (const TourText& t : tour_texts(Language::Ja)) {
    text += t.title + t.body + t.check;
    for (const auto& f : t.formulas) text += f;
  }
  for (int i = 0; i < 12; ++i) text += tour_word(Language::Ja, i);
  for (const std::string& f : tour_measured_formats(Language::Ja)) text += f;
  const TourFigureWords& w = tour_figure_words(Language::Ja);
  for (const std::string* words : {&w.position_axis, &w.normalized_title, &w.normalized_subtitle, &w.absolute_position,
                                   &w.relative_to, &w.norms_title, &w.norms_subtitle, &w.norm_axis, &w.added_legend,
                                   &w.rotated_legend})
    text += *words;
  for (int n = 0; n < 5; ++n) text += tour_property(Language::Ja, n) + tour_property_test(Language::Ja, n);
  return text;
}

}  // namespace poslab

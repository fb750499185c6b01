// The checks of "Papers, checked": each published value is written here once, with where it is
// printed; docs/PAPERS.md says what each reproduces and what it does not.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/encodings/bias.hpp"
#include "core/papers/cited.hpp"
#include "core/papers/paper_math.hpp"
#include "core/papers/papers.hpp"

namespace poslab {

namespace {

using namespace cited;

// RoFormer's Fig. 2 and Llama 2: d = 128, base 10⁴.
constexpr int kD = 128;
constexpr double kBase = 10000.0;

double mean_of(const std::vector<double>& v, std::size_t from, std::size_t to) {
  double sum = 0.0;
  for (std::size_t i = from; i <= to; ++i) sum += v[i];
  return sum / static_cast<double>(to - from + 1);
}

// --- roformer-decay ----------------------------------------------------------------------------

constexpr int kFigureRange = 250;  // RoFormer Fig. 2's relative distances, 0 … 250
constexpr int kFarFrom = 200;      // its last fifth
constexpr int kGaussianSamples = 4096;
constexpr std::uint64_t kGaussianSeed = 2024;
const std::vector<int> kScoreDistances = {1, 10, 100, 1000};

PaperCheckResult run_roformer() {
  PaperCheckResult r{"roformer-decay", {}};
  const std::vector<double> bound = roformer_relative_bound(kD, kBase, kFigureRange);
  // At m = 0 every S_j = j, so the bound is (1/(d/2))·Σj = (d/2 + 1)/2 = 32.5: where Fig. 2 starts.
  r.rows.push_back(comparison(kRoFormer, "§3.4.3, Fig. 2", "relative upper bound at m = 0 (d = 128, base 10^4)", {32.5},
                              {bound[0]}, 1e-12));
  PaperComparison decay =
      comparison(kRoFormer, "§3.4.3, Fig. 2", "bound decays: mean over m = 200…250 ÷ value at m = 0, at most 1/2",
                 {0.5}, {mean_of(bound, kFarFrom, kFigureRange) / bound[0]}, 0.0, Relation::AtMost);
  r.rows.push_back(decay);
  // Independent zero-mean q, k: E[q·R(m)k] = Σ E[q]·E[R(m)k] = 0 at every m (no decay to show).
  // The mean of N draws has standard error √(d/N); five of them is the tolerance.
  const double tolerance = 5.0 * std::sqrt(static_cast<double>(kD) / kGaussianSamples);
  std::vector<double> independent, same, closed;
  for (int m : kScoreDistances) {
    independent.push_back(mean_rotated_score(kD, kBase, m, kGaussianSamples, kGaussianSeed, false));
    same.push_back(mean_rotated_score(kD, kBase, m, kGaussianSamples, kGaussianSeed, true));
    closed.push_back(same_vector_expected_score(kD, kBase, m));
  }
  r.rows.push_back(comparison(kBarbero, "§3",
                              "E[q·R(m)k], q, k ~ N(0, I) independent, m = 1, 10, 100, 1000 (4096 draws)",
                              std::vector<double>(kScoreDistances.size(), 0.0), independent, tolerance));
  // q = k: each pair gives E|q_pair|²·cos(mθᵢ) = 2cos(mθᵢ). Derived here from the paper's setting;
  // the sample standard error is at most √(4·d/2 / N), so the same tolerance holds.
  r.rows.push_back(comparison(kBarbero, "§3 (derived)", "E[q·R(m)q] = 2·Σ cos(m·θᵢ), q ~ N(0, I), m = 1, 10, 100, 1000",
                              closed, same, 5.0 * std::sqrt(2.0 * kD / kGaussianSamples)));
  return r;
}

std::vector<PaperPanel> roformer_panels() {
  PaperPanel bound{"RoFormer's long-term decay (Su et al. 2021, Fig. 2)",
                   "relative distance m",
                   "relative upper bound",
                   false,
                   false,
                   {},
                   {},
                   {}};
  PaperCurve curve{"PosLab: (1/(d/2))·Σ|S_j|, d = 128, base 10^4", {}, {}, CurveKind::Computed};
  const std::vector<double> b = roformer_relative_bound(kD, kBase, kFigureRange);
  for (int m = 0; m <= kFigureRange; ++m) {
    curve.x.push_back(m);
    curve.y.push_back(b[static_cast<std::size_t>(m)]);
  }
  bound.curves.push_back(curve);
  bound.curves.push_back({"published: 32.5 at m = 0", {0.0}, {32.5}, CurveKind::Published});
  bound.reference_y.push_back({32.5 / 2.0, "½ of the value at m = 0: the bound on the mean over m = 200…250"});
  PaperPanel scores{"Gaussian q, k: no decay (Barbero et al. 2024, §3)",
                    "relative distance m (log scale)",
                    "mean of q·R(m)k over 4096 draws",
                    true,
                    false,
                    {},
                    {{0.0, "0: Barbero et al.'s expectation"}},
                    {}};
  PaperCurve independent{"PosLab: q, k independent", {}, {}, CurveKind::Computed};
  PaperCurve same{"PosLab: q = k", {}, {}, CurveKind::Computed};
  PaperCurve closed{"2·Σ cos(m·θᵢ) (q = k, closed form)", {}, {}, CurveKind::Fit};
  for (int m : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}) {
    independent.x.push_back(m);
    independent.y.push_back(mean_rotated_score(kD, kBase, m, kGaussianSamples, kGaussianSeed, false));
    same.x.push_back(m);
    same.y.push_back(mean_rotated_score(kD, kBase, m, kGaussianSamples, kGaussianSeed, true));
    closed.x.push_back(m);
    closed.y.push_back(same_vector_expected_score(kD, kBase, m));
  }
  scores.curves = {independent, same, closed};
  return {bound, scores};
}

// --- alibi-slopes ------------------------------------------------------------------------------

// Press et al. 2022, §3: "for a model with 8 heads, the slopes we use are the geometric sequence
// 1/2^1, 1/2^2, …, 1/2^8"; with 16 heads, 1/2^0.5, 1/2^1, …, 1/2^8 (every power of 2^−0.5).
std::vector<double> published_power_of_two(int heads) {
  std::vector<double> slopes;
  for (int h = 1; h <= heads; ++h) slopes.push_back(std::pow(2.0, -8.0 * h / heads));
  return slopes;
}
// The authors' get_slopes (ofirpress/attention_with_linear_biases, fairseq/models/transformer.py)
// for 12 heads: the 8 slopes of 8 heads, then slopes 1, 3, 5, 7 of the 16-head list, i.e.
// 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5.
const std::vector<double> kPublished12 = {0.5,
                                          0.25,
                                          0.125,
                                          0.0625,
                                          0.03125,
                                          0.015625,
                                          0.0078125,
                                          0.00390625,
                                          0.70710678118654752,
                                          0.35355339059327376,
                                          0.17677669529663688,
                                          0.08838834764831844};

PaperCheckResult run_alibi() {
  PaperCheckResult r{"alibi-slopes", {}};
  r.rows.push_back(comparison(kAlibi, "§3", "head slopes m_h, 8 heads: 1/2 … 1/256 (PosLab's alibi_slopes)",
                              published_power_of_two(8), alibi_slopes(8), 1e-15));
  r.rows.push_back(comparison(kAlibi, "§3", "head slopes m_h, 16 heads: 2^-0.5 … 2^-8", published_power_of_two(16),
                              alibi_slopes(16), 1e-15));
  r.rows.push_back(comparison(kAlibi, "authors' code, get_slopes", "head slopes m_h, 12 heads (not a power of two)",
                              kPublished12, alibi_slopes(12), 1e-15));
  return r;
}

std::vector<PaperPanel> alibi_panels() {
  std::vector<PaperPanel> panels;
  for (int heads : {8, 12, 16}) {
    PaperPanel panel{"ALiBi's slopes, " + std::to_string(heads) + " heads (Press et al. 2022)",
                     "head h",
                     "slope m_h (log scale)",
                     false,
                     true,
                     {},
                     {},
                     {}};
    PaperCurve ours{"PosLab (alibi_slopes)", {}, alibi_slopes(heads), CurveKind::Computed};
    PaperCurve theirs{heads == 12 ? "published: the authors' get_slopes" : "published: §3",
                      {},
                      heads == 12 ? kPublished12 : published_power_of_two(heads),
                      CurveKind::Published};
    for (int h = 1; h <= heads; ++h) ours.x.push_back(h), theirs.x.push_back(h);
    panel.curves = {ours, theirs};
    panels.push_back(panel);
  }
  return panels;
}

// A check from the mathematics alone: its comparisons, and its panels when they are asked for.
template <PaperCheckResult (*Run)(), std::vector<PaperPanel> (*Panels)()>
Result<PaperOutcome> from_mathematics(const PaperInputs& inputs) {
  PaperOutcome outcome{Run(), {}};
  if (inputs.panels) outcome.panels = Panels();
  return outcome;
}

}  // namespace

// Defined in paper_checks_rope.cpp.
PaperCheckResult run_yarn();
std::vector<PaperPanel> yarn_panels();
PaperCheckResult run_critical_dimension();
std::vector<PaperPanel> critical_dimension_panels();
PaperCheckResult run_base_bound();
std::vector<PaperPanel> base_bound_panels();
// Defined in paper_checks_trained.cpp: measured on the shipped tiny models.
Result<PaperOutcome> run_alibi_extrapolation(const PaperInputs& in);
Result<PaperOutcome> run_survey_table(const PaperInputs& in);
Result<PaperOutcome> run_nope_length(const PaperInputs& in);
Result<PaperOutcome> run_nope_position_probe(const PaperInputs& in);
// Defined in paper_checks_model.cpp: measured on the model the user opens.
Result<PaperOutcome> run_sinks(const PaperInputs& in);
Result<PaperOutcome> run_massive_activations(const PaperInputs& in);
Result<PaperOutcome> run_frequency_usage(const PaperInputs& in);

const std::vector<PaperCheck>& paper_checks() {
  static const std::vector<PaperCheck> checks = {
      {"roformer-decay", kRoFormer, "§3.4.3, Fig. 2",
       "RoPE's relative upper bound against distance (32.5 at m = 0, decaying); beside it, Barbero et al. 2024: "
       "Gaussian q, k give no decay in expectation",
       PaperNeeds::Nothing, from_mathematics<run_roformer, roformer_panels>},
      {"alibi-slopes", kAlibi, "§3; the authors' get_slopes",
       "ALiBi's head slopes for 8 and 16 heads and the code's rule for 12 heads", PaperNeeds::Nothing,
       from_mathematics<run_alibi, alibi_panels>},
      {"yarn", kYarn, "§3.2–3.4 (ramp γ(r), temperature √(1/t) = 0.1·ln s + 1)",
       "YaRN's per-pair ramp (β_fast = 32, β_slow = 1) and attention temperature, from PosLab's YaRN code",
       PaperNeeds::Nothing, from_mathematics<run_yarn, yarn_panels>},
      {"critical-dimension", kLiu, "§3 (critical dimension for extrapolation)",
       "d_extra = 2·⌈(d/2)·log_base(T_train/2π)⌉ = 92 for Llama 2, and T_extra = 2π·base^(d_extra/d)",
       PaperNeeds::Nothing, from_mathematics<run_critical_dimension, critical_dimension_panels>},
      {"base-bound", kMen, "Table (lower bound of the base per context length), Fig. 1",
       "the smallest base keeping B(m) = Σ cos(m·θᵢ) ≥ 0 for every m up to the context length", PaperNeeds::Nothing,
       from_mathematics<run_base_bound, base_bound_panels>},
      {"alibi-extrapolation", kAlibi, "Fig. 1 (its shape)",
       "trained at length L, ALiBi's loss stays flat to 4L while sinusoidal's, rotary's and T5's rise (the shipped "
       "copy models)",
       PaperNeeds::TrainedModels, run_alibi_extrapolation},
      {"survey-table", kSurvey, "§7.1 comparison table",
       "extrapolation of sinusoidal, learned, relative (T5), RoPE and ALiBi, measured on one task and ranked as the "
       "table ranks them",
       PaperNeeds::TrainedModels, run_survey_table},
      {"nope-length", kKazemnejad, "the length-generalization experiments",
       "NoPE, T5 bias, ALiBi, rotary and learned trained on copy and reverse up to L, tested to 2L: is NoPE first?",
       PaperNeeds::TrainedModels, run_nope_length},
      {"nope-position-probe", kHaviv, "the probing experiments",
       "a linear probe recovers absolute position from a causal model without positions, and not once its causal mask "
       "is removed",
       PaperNeeds::TrainedModels, run_nope_position_probe},
      {"sinks", kXiao, "§3.1, Fig. 2",
       "the opened model's attention on the first token, layer by layer: heavy beyond the bottom two layers",
       PaperNeeds::Model, run_sinks},
      {"massive-activations", kSun, "§2, Fig. 1",
       "the residual stream's largest values: over 100, about 1,000× the median, on the first token or the first "
       "delimiter",
       PaperNeeds::Model, run_massive_activations},
      {"frequency-usage", kBarbero, "abstract; the Gemma 7B analysis",
       "which rotary frequencies the opened model's heads use: positional heads the highest, the others the lowest",
       PaperNeeds::Model, run_frequency_usage},
  };
  return checks;
}

}  // namespace poslab

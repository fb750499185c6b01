// The RoPE-frequency checks of "Papers, checked": YaRN's ramp and temperature, Liu et al.'s
// critical dimension, Men et al.'s lower bound of the base. Published values are written once here.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "core/papers/cited.hpp"
#include "core/papers/paper_math.hpp"
#include "core/papers/papers.hpp"

namespace poslab {

namespace {

using namespace cited;

constexpr int kD = 128;  // Llama 2's head width, base 10⁴, 4096 training tokens
constexpr double kBase = 10000.0;
constexpr int kLlama2Length = 4096;
constexpr double kBetaFast = 32.0, kBetaSlow = 1.0;  // YaRN §3.2: α = 1, β = 32 for Llama
constexpr double kYarnFactor = 16.0;                 // YaRN's Llama 2 models: s = 16 (64K) and 32 (128K)

// max |a − b| over the pairs where `where` holds.
template <typename Where>
double max_difference(const std::vector<double>& a, const std::vector<double>& b, Where where) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (where(i)) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

}  // namespace

// --- yarn --------------------------------------------------------------------------------------

PaperCheckResult run_yarn() {
  PaperCheckResult r{"yarn", {}};
  // §3.4: √(1/t) = 0.1·ln(s) + 1; to four decimals 1.2773 for s = 16 and 1.3466 for s = 32.
  r.rows.push_back(comparison(kYarn, "§3.4, eq. for √(1/t)", "attention temperature √(1/t) at s = 16 and s = 32",
                              {1.2773, 1.3466}, {yarn_temperature_poslab(16.0), yarn_temperature_poslab(32.0)}, 5e-5));
  const auto ours = yarn_share_poslab(kD, kBase, kLlama2Length, kYarnFactor);
  const auto paper = yarn_share_paper(kD, kBase, kLlama2Length, kBetaFast, kBetaSlow);
  const auto code = yarn_share_code(kD, kBase, kLlama2Length, kBetaFast, kBetaSlow);
  const auto outside = [&](std::size_t i) { return paper[i] == 0.0 || paper[i] == 1.0; };
  const auto inside = [&](std::size_t i) { return !outside(i); };
  r.rows.push_back(comparison(
      kYarn, "§3.2, γ(r)", "pairs outside the ramp (r ≥ 32 kept, r ≤ 1 interpolated): max |Δ share|, Llama 2, s = 16",
      {0.0}, {max_difference(ours, paper, outside)}, 1e-9));
  r.rows.push_back(comparison(kYarn, "authors' code, _yarn_linear_ramp_mask",
                              "pairs on the ramp: max |Δ share| against the authors' code (linear in the pair index)",
                              {0.0}, {max_difference(ours, code, inside)}, 1e-9));
  r.rows.push_back(
      comparison(kYarn, "§3.2, γ(r)", "pairs on the ramp: max |Δ share| against the paper's γ (linear in r = L/λ)",
                 {0.0}, {max_difference(ours, paper, inside)}, 0.01, Relation::Equal,
                 "PosLab follows the authors' code and Hugging Face, whose ramp is linear in the pair index; "
                 "the paper's γ is linear in r, so the blended pairs differ"));
  return r;
}

std::vector<PaperPanel> yarn_panels() {
  PaperPanel ramp{"YaRN's ramp, Llama 2 (d = 128, base 10^4, L = 4096), s = 16",
                  "pair i",
                  "share of interpolation h (θ' = (1−h)·θ + h·θ/s)",
                  false,
                  false,
                  {},
                  {},
                  {}};
  const auto as_curve = [](std::string label, const std::vector<double>& y, CurveKind kind) {
    PaperCurve c{std::move(label), {}, y, kind};
    for (std::size_t i = 0; i < y.size(); ++i) c.x.push_back(static_cast<double>(i));
    return c;
  };
  ramp.curves.push_back(as_curve("PosLab (rope_frequencies)", yarn_share_poslab(kD, kBase, kLlama2Length, kYarnFactor),
                                 CurveKind::Computed));
  ramp.curves.push_back(as_curve("paper: 1 − γ(r), §3.2",
                                 yarn_share_paper(kD, kBase, kLlama2Length, kBetaFast, kBetaSlow), CurveKind::Fit));
  ramp.curves.push_back(
      as_curve("authors' code", yarn_share_code(kD, kBase, kLlama2Length, kBetaFast, kBetaSlow), CurveKind::Published));
  PaperPanel temperature{"YaRN's attention temperature √(1/t) = 0.1·ln s + 1",
                         "scale factor s (log scale)",
                         "√(1/t)",
                         true,
                         false,
                         {},
                         {},
                         {}};
  PaperCurve ours{"PosLab", {}, {}, CurveKind::Computed};
  for (double s = 1.0; s <= 64.0; s *= std::pow(2.0, 0.25)) {
    ours.x.push_back(s);
    ours.y.push_back(yarn_temperature_poslab(s));
  }
  temperature.curves = {ours, {"published: 1.2773, 1.3466", {16.0, 32.0}, {1.2773, 1.3466}, CurveKind::Published}};
  return {ramp, temperature};
}

// --- critical-dimension ------------------------------------------------------------------------

PaperCheckResult run_critical_dimension() {
  PaperCheckResult r{"critical-dimension", {}};
  // §3: for LLaMA 2 (d = 128, base 10000, T_train = 4096) the critical dimension is 92.
  r.rows.push_back(comparison(kLiu, "§3, critical dimension", "d_extra = 2·⌈(d/2)·log_base(T_train/2π)⌉, Llama 2",
                              {92.0}, {static_cast<double>(critical_dimension(kD, kBase, kLlama2Length))}, 0.0));
  r.rows.push_back(comparison(kLiu, "§3, critical dimension",
                              "dimensions whose period 2π/θᵢ fits in T_train = 4096 (PosLab's θᵢ), Llama 2", {92.0},
                              {static_cast<double>(dimensions_with_full_period(kD, kBase, kLlama2Length))}, 0.0));
  return r;
}

std::vector<PaperPanel> critical_dimension_panels() {
  const int d_extra = critical_dimension(kD, kBase, kLlama2Length);
  PaperPanel periods{"Periods of RoPE's dimensions, Llama 2 (Liu et al. 2023, §3)",
                     "dimension 2i",
                     "period 2π/θᵢ in tokens (log scale)",
                     false,
                     true,
                     {},
                     {{double(kLlama2Length), "T_train = 4096"}},
                     {{double(d_extra), "d_extra"}}};
  PaperCurve curve{"PosLab: base 10^4, d = 128", {}, {}, CurveKind::Computed};
  for (int i = 0; i < kD / 2; ++i) {
    curve.x.push_back(2.0 * i);
    curve.y.push_back(2.0 * std::numbers::pi * std::pow(kBase, 2.0 * i / kD));
  }
  periods.curves = {
      curve,
      {"published: d_extra = 92", {92.0}, {2.0 * std::numbers::pi * std::pow(kBase, 92.0 / kD)}, CurveKind::Published}};
  PaperPanel bound{"Extrapolation bound T_extra = 2π·base^(d_extra/d), d_extra = 92",
                   "base (log scale)",
                   "T_extra in tokens (log scale)",
                   true,
                   true,
                   {},
                   {},
                   {}};
  PaperCurve t{"PosLab", {}, {}, CurveKind::Computed};
  for (double base = 1e4; base <= 1.01e9; base *= 10.0) {
    t.x.push_back(base);
    t.y.push_back(extrapolation_bound(kD, base, d_extra));
  }
  bound.curves = {t};
  return {periods, bound};
}

// --- base-bound --------------------------------------------------------------------------------

namespace {

// Men et al. 2024, the table of context length and the lower bound of the base (d = 128), also
// drawn in their Fig. 1 with the fit base = 0.0424·L^1.628.
struct PublishedBound {
  long length;
  double base;
};
const std::vector<PublishedBound> kMenTable = {
    {1L << 10, 4.3e3}, {1L << 11, 1.6e4}, {1L << 12, 2.7e4}, {1L << 13, 8.4e4}, {1L << 14, 3.1e5}, {1L << 15, 6.4e5},
    {1L << 16, 2.1e6}, {1L << 17, 7.8e6}, {1L << 18, 3.6e7}, {1L << 19, 6.4e7}, {1L << 20, 5.1e8}};
constexpr double kFitScale = 0.0424, kFitExponent = 1.628;
// The lengths PosLab searches (1K … 64K, about 3 s); 128K adds about 7 s and each doubling after it
// about twice as much again (docs/PAPERS.md), so they are drawn as published points only.
constexpr std::size_t kComputed = 7;
// A grid step of 0.1 %: the passing windows below the first wide one are about 0.5 % wide.
constexpr double kGridRatio = 1.001;
// The table has two significant digits (≤ 1.2 % rounding) and the authors do not say how finely
// they searched; 5 % separates a rounding from another window found.
constexpr double kRelativeTolerance = 0.05;

std::vector<long> computed_lengths() {
  std::vector<long> lengths;
  for (std::size_t k = 0; k < kComputed; ++k) lengths.push_back(kMenTable[k].length);
  return lengths;
}

std::string length_name(long L) {
  return L >= (1L << 20) ? std::to_string(L >> 20) + "M" : std::to_string(L >> 10) + "K";
}

}  // namespace

PaperCheckResult run_base_bound() {
  PaperCheckResult r{"base-bound", {}};
  const std::vector<double> bases = smallest_nonnegative_bases(kD, computed_lengths(), kGridRatio);
  for (std::size_t k = 0; k < bases.size(); ++k) {
    const PublishedBound& p = kMenTable[k];
    PaperComparison c =
        comparison(kMen, "Table (context length vs lower bound of base)",
                   "smallest base with Σ cos(m·θᵢ) ≥ 0 for all m ≤ " + length_name(p.length) + " (d = 128)", {p.base},
                   {bases[k]}, kRelativeTolerance * p.base);
    if (!c.pass())
      c.note = "PosLab's smallest base differs by " +
               std::to_string(static_cast<int>(std::lround(100.0 * (bases[k] / p.base - 1.0)))) +
               " %: B(m) ≥ 0 holds only in narrow windows of bases below the first wide one, and PosLab's grid "
               "(0.1 %) finds the lowest window";
    r.rows.push_back(c);
  }
  return r;
}

std::vector<PaperPanel> base_bound_panels() {
  PaperPanel panel{"RoPE's base bounds the context length (Men et al. 2024)",
                   "context length L (log scale)",
                   "smallest base with B(m) ≥ 0 up to L (log scale)",
                   true,
                   true,
                   {},
                   {},
                   {}};
  const std::vector<long> lengths = computed_lengths();
  const std::vector<double> bases = smallest_nonnegative_bases(kD, lengths, kGridRatio);
  PaperCurve ours{"PosLab (grid 0.1 %)", {}, bases, CurveKind::Computed};
  PaperCurve table{"published table", {}, {}, CurveKind::Published};
  PaperCurve fit{"published fit 0.0424·L^1.628", {}, {}, CurveKind::Fit};
  for (long L : lengths) ours.x.push_back(static_cast<double>(L));
  for (const PublishedBound& p : kMenTable) {
    table.x.push_back(static_cast<double>(p.length));
    table.y.push_back(p.base);
    fit.x.push_back(static_cast<double>(p.length));
    fit.y.push_back(kFitScale * std::pow(static_cast<double>(p.length), kFitExponent));
  }
  panel.curves = {ours, table, fit};
  return {panel};
}

}  // namespace poslab

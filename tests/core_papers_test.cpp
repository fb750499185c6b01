// "Papers, checked": the papers' quantities against an independent NumPy computation
// (tests/reference/make_papers_reference.py), and the registry's verdicts and outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/encodings/bias.hpp"
#include "core/model/checkpoint.hpp"
#include "core/model/forward.hpp"
#include "core/model/position_probe.hpp"
#include "core/papers/paper_math.hpp"
#include "core/papers/papers.hpp"
#include "core/train/extrapolation.hpp"
#include "reference.hpp"

using namespace poslab;
using poslab::testing::reference;

namespace {

void expect_near_all(const std::vector<double>& ours, const Eigen::MatrixXd& ref, double tolerance) {
  ASSERT_EQ(static_cast<Eigen::Index>(ours.size()), ref.size());
  for (Eigen::Index k = 0; k < ref.size(); ++k) EXPECT_NEAR(ours[static_cast<std::size_t>(k)], ref(k), tolerance) << "at " << k;
}

const PaperCheckResult& result_of(std::string_view id) {
  static std::map<std::string, PaperCheckResult> cache;
  auto it = cache.find(std::string(id));
  if (it == cache.end()) {
    auto outcome = run_paper_check(*find_paper_check(id), PaperInputs{{}, {}, false, nullptr, {}});
    EXPECT_TRUE(outcome) << outcome.error();
    it = cache.emplace(std::string(id), outcome ? outcome->result : PaperCheckResult{}).first;
  }
  return it->second;
}

}  // namespace

TEST(PaperMath, RoFormerBoundMatchesNumPy) {
  const auto& m = reference("pap_roformer_m");
  const auto& expected = reference("pap_roformer_bound");
  const std::vector<double> bound = roformer_relative_bound(128, 10000.0, 1000);
  for (Eigen::Index k = 0; k < m.size(); ++k)
    EXPECT_NEAR(bound[static_cast<std::size_t>(m(k))], expected(k), 1e-11) << "m = " << m(k);
  EXPECT_DOUBLE_EQ(bound[0], 32.5);
}

TEST(PaperMath, AlibiSlopesMatchTheAuthorsGetSlopes) {
  for (int n : {8, 12, 16}) expect_near_all(alibi_slopes(n), reference("pap_alibi_" + std::to_string(n)), 1e-15);
}

TEST(PaperMath, YarnRampsAndTemperatureMatchNumPy) {
  expect_near_all(yarn_share_paper(128, 10000.0, 4096, 32.0, 1.0), reference("pap_yarn_paper_share"), 1e-12);
  expect_near_all(yarn_share_code(128, 10000.0, 4096, 32.0, 1.0), reference("pap_yarn_code_share"), 1e-12);
  // PosLab's own YaRN code, read back through rope_frequencies, is the authors' code's ramp.
  expect_near_all(yarn_share_poslab(128, 10000.0, 4096, 16.0), reference("pap_yarn_code_share"), 1e-9);
  const auto& t = reference("pap_yarn_temperature");
  EXPECT_NEAR(yarn_temperature_poslab(16.0), t(0), 1e-12);
  EXPECT_NEAR(yarn_temperature_poslab(32.0), t(1), 1e-12);
}

TEST(PaperMath, CriticalDimensionIs92ForLlama2) {
  EXPECT_EQ(critical_dimension(128, 10000.0, 4096), static_cast<int>(reference("pap_critical_dimension")(0)));
  EXPECT_EQ(dimensions_with_full_period(128, 10000.0, 4096), 92);
  EXPECT_NEAR(extrapolation_bound(128, 10000.0, 92), 2 * M_PI * std::pow(10000.0, 92.0 / 128), 1e-9);
}

TEST(PaperMath, SmallestBasesMatchNumPy) {
  const auto& expected = reference("pap_min_base_1k_2k_4k");
  const std::vector<double> bases = smallest_nonnegative_bases(128, {1024, 2048, 4096}, 1.001);
  ASSERT_EQ(bases.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(bases[k] / expected(k), 1.0, 1e-4) << k;
  // The smallest base keeps B ≥ 0 up to L; slightly below it, B goes negative somewhere before L.
  EXPECT_LT(first_negative_cos_sum(128, bases[2], 4096), 0);
  EXPECT_GE(first_negative_cos_sum(128, bases[2] * 0.999, 4096), 0);
}

TEST(PaperMath, GaussianScoresHaveTheExpectedMeans) {
  const auto& closed = reference("pap_same_vector_score");
  const int ms[] = {1, 10, 100, 1000};
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(same_vector_expected_score(128, 10000.0, ms[k]), closed(k), 1e-9);
    EXPECT_NEAR(mean_rotated_score(128, 10000.0, ms[k], 4096, 7, true), closed(k), 1.25);
    EXPECT_NEAR(mean_rotated_score(128, 10000.0, ms[k], 4096, 7, false), 0.0, 0.9);
  }
}

TEST(PaperRegistry, ListsEachCheckOnceWithItsPaper) {
  std::set<std::string> ids;
  for (const PaperCheck& c : paper_checks()) {
    EXPECT_TRUE(ids.insert(std::string(c.id)).second) << c.id;
    EXPECT_FALSE(c.paper.empty());
    EXPECT_FALSE(c.where.empty());
    EXPECT_EQ(find_paper_check(c.id), &c);
  }
  for (const char* id : {"roformer-decay", "alibi-slopes", "yarn", "critical-dimension", "base-bound"})
    EXPECT_TRUE(ids.contains(id)) << id;
  EXPECT_EQ(find_paper_check("no-such-check"), nullptr);
}

TEST(PaperRegistry, VerdictsAreThoseOfTheMathematics) {
  EXPECT_TRUE(result_of("roformer-decay").pass()) << papers_table({result_of("roformer-decay")});
  EXPECT_TRUE(result_of("alibi-slopes").pass()) << papers_table({result_of("alibi-slopes")});
  EXPECT_TRUE(result_of("critical-dimension").pass()) << papers_table({result_of("critical-dimension")});
  // YaRN: everything but the ramp's middle, where the paper's γ(r) and the authors' code differ.
  const PaperCheckResult& yarn = result_of("yarn");
  ASSERT_EQ(yarn.rows.size(), 4u);
  EXPECT_TRUE(yarn.rows[0].pass() && yarn.rows[1].pass() && yarn.rows[2].pass()) << papers_table({yarn});
  EXPECT_FALSE(yarn.rows[3].pass());
  EXPECT_GT(yarn.rows[3].largest_difference(), 0.2);
  EXPECT_FALSE(yarn.pass());
}

TEST(PaperRegistry, AComparisonFailsOutsideItsTolerance) {
  PaperComparison c{"p", "w", "q", {1.0, 2.0}, {1.0, 2.05}, 0.1, Relation::Equal, ""};
  EXPECT_TRUE(c.pass());
  c.measured[1] = 2.2;
  EXPECT_FALSE(c.pass());
  EXPECT_NEAR(c.largest_difference(), 0.2, 1e-12);
  c.measured = {1.0};  // sizes differ: never a pass
  EXPECT_FALSE(c.pass());
  c.measured = {1.0, std::nan("")};
  c.published = {1.0, 2.0};
  EXPECT_FALSE(c.pass());
  PaperComparison at_most{"p", "w", "q", {0.5}, {0.4}, 0.0, Relation::AtMost, ""};
  EXPECT_TRUE(at_most.pass());
  at_most.measured = {0.6};
  EXPECT_FALSE(at_most.pass());
}

TEST(PaperRegistry, JsonHasExactlyTheDocumentedKeys) {
  const auto json = nlohmann::json::parse(papers_json({result_of("alibi-slopes"), result_of("critical-dimension")}));
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), 5u);
  const std::set<std::string> keys = {"id", "paper", "where", "quantity", "published", "measured", "tolerance", "pass"};
  for (const auto& o : json) {
    std::set<std::string> got;
    for (const auto& [k, v] : o.items()) got.insert(k);
    EXPECT_EQ(got, keys);
  }
  EXPECT_EQ(json[0]["id"], "alibi-slopes");
  EXPECT_EQ(json[0]["published"].size(), 8u);
  EXPECT_EQ(json[3]["measured"], 92.0);
  EXPECT_EQ(json[3]["pass"], true);
}

TEST(PaperRegistry, AtLeastIsABoundFromBelow) {
  PaperComparison c{"p", "w", "q", {1.0}, {1.2}, 0.0, Relation::AtLeast, ""};
  EXPECT_TRUE(c.pass());
  c.measured = {0.95};
  EXPECT_FALSE(c.pass());
  c.tolerance = 0.1;
  EXPECT_TRUE(c.pass());
  c.measured = {std::nan("")};
  EXPECT_FALSE(c.pass());
}

TEST(PaperRegistry, ACheckMissingWhatItNeedsIsRefusedByName) {
  auto trained = run_paper_check(*find_paper_check("survey-table"), PaperInputs{"/no/such/folder", {}, false, nullptr, {}});
  ASSERT_FALSE(trained);
  EXPECT_NE(trained.error().find("survey-table needs the shipped trained models"), std::string::npos) << trained.error();
  auto model = run_paper_check(*find_paper_check("sinks"), PaperInputs{{}, {}, false, nullptr, {}});
  ASSERT_FALSE(model);
  EXPECT_NE(model.error().find("sinks needs a model folder (--model DIR)"), std::string::npos) << model.error();
}

// --- Checks on the shipped tiny models ----------------------------------------------------------

namespace {

const std::filesystem::path kTrained = std::filesystem::path(POSLAB_ASSETS) / "trained";

PaperOutcome trained_outcome(std::string_view id) {
  auto o = run_paper_check(*find_paper_check(id), PaperInputs{kTrained, {}, true, nullptr, {}});
  EXPECT_TRUE(o) << (o ? "" : o.error());
  return o ? *o : PaperOutcome{};
}

// The shipped models' extrapolation table, measured by `poslab export extrapolation` when they
// were trained (tools/train_shipped_models.sh): (model, length) → loss, for scaling "none".
std::map<std::pair<std::string, int>, double> shipped_table() {
  std::ifstream in(kTrained / "extrapolation.csv");
  std::stringstream text;
  text << in.rdbuf();
  auto curves = parse_extrapolation_csv(text.str());
  EXPECT_TRUE(curves) << (curves ? "" : curves.error());
  std::map<std::pair<std::string, int>, double> loss;
  if (curves)
    for (const ExtrapolationCurve& c : *curves)
      if (c.scaling == RopeScalingType::None)
        for (const EvalRow& r : c.rows) loss[{c.model, r.length}] = r.loss;
  return loss;
}

}  // namespace

TEST(PaperTrained, AlibiExtrapolationReadsTheLossesTheShippedTableHolds) {
  const PaperOutcome o = trained_outcome("alibi-extrapolation");
  ASSERT_EQ(o.result.rows.size(), 2u);
  auto table = shipped_table();
  // The same models, sequences and seed as the table's: the same losses, by another command.
  EXPECT_NEAR(o.result.rows[0].measured[0], table.at(std::pair<std::string, int>("alibi", 128)) - table.at(std::pair<std::string, int>("alibi", 32)), 1e-6);
  const std::vector<double>& rises = o.result.rows[1].measured;
  ASSERT_EQ(rises.size(), 3u);
  EXPECT_NEAR(rises[0], table.at(std::pair<std::string, int>("sinusoidal", 64)) - table.at(std::pair<std::string, int>("sinusoidal", 32)), 1e-5);
  EXPECT_NEAR(rises[1], table.at(std::pair<std::string, int>("rope", 64)) - table.at(std::pair<std::string, int>("rope", 32)), 1e-5);
  EXPECT_NEAR(rises[2], table.at(std::pair<std::string, int>("t5", 64)) - table.at(std::pair<std::string, int>("t5", 32)), 1e-5);
  EXPECT_TRUE(o.result.pass()) << papers_table({o.result});
  ASSERT_EQ(o.panels.size(), 1u);
  EXPECT_EQ(o.panels[0].curves.size(), 5u);  // the four of Fig. 1 and the learned table up to its end
}

TEST(PaperTrained, SurveyRanksAreThoseOfTheTablesLossesAtTwiceTheTrainingLength) {
  const PaperOutcome o = trained_outcome("survey-table");
  ASSERT_EQ(o.result.rows.size(), 2u);
  auto table = shipped_table();
  // Ranked here from the table: the learned table cannot run at 2L (nan), so it is last.
  const std::vector<std::string> order = {"alibi", "t5", "learned", "sinusoidal", "rope"};
  std::vector<double> loss;
  for (const std::string& m : order) {
    const double l = table.at({m, 64});
    loss.push_back(std::isnan(l) ? std::numeric_limits<double>::infinity() : l);
  }
  std::vector<double> rank;
  for (double l : loss) rank.push_back(1.0 + static_cast<double>(std::count_if(loss.begin(), loss.end(), [&](double x) { return x < l; })));
  EXPECT_EQ(o.result.rows[0].measured, (std::vector<double>{rank[0], rank[1], rank[2]}));
  EXPECT_EQ(o.result.rows[1].measured, (std::vector<double>{rank[3], rank[4]}));
  EXPECT_TRUE(o.result.pass()) << papers_table({o.result});
}

TEST(PaperTrained, NopeLengthRanksNopeOnBothTasksAndSaysEveryEncodingsAccuracy) {
  const PaperOutcome o = trained_outcome("nope-length");
  ASSERT_EQ(o.result.rows.size(), 2u);
  for (const PaperComparison& c : o.result.rows) {
    ASSERT_EQ(c.measured.size(), 1u);
    EXPECT_GE(c.measured[0], 1.0);
    EXPECT_LE(c.measured[0], 5.0);
    EXPECT_EQ(c.pass(), c.measured[0] == 1.0);
    for (const char* name : {"NoPE", "T5 bias", "ALiBi", "rotary", "learned"}) EXPECT_NE(c.note.find(name), std::string::npos) << c.note;
  }
  ASSERT_EQ(o.panels.size(), 2u);
  // The learned table has positions for 16 tokens (length 8) only: 0 past it.
  const PaperCurve& learned = o.panels[0].curves.back();
  ASSERT_EQ(learned.x.size(), 16u);
  EXPECT_EQ(learned.y[15], 0.0);
  // Every model learned its task in the lengths it was trained on.
  for (const PaperPanel& p : o.panels)
    for (const PaperCurve& c : p.curves)
      if (c.label != "NoPE") EXPECT_GE(c.y[3], 0.5) << p.title << " " << c.label;  // length 4
}

TEST(PaperTrained, PositionProbeIsThePositionProbeOfTheShippedModelWithAndWithoutItsMask) {
  const PaperOutcome o = trained_outcome("nope-position-probe");
  ASSERT_EQ(o.result.rows.size(), 2u);
  ASSERT_EQ(o.panels.size(), 1u);
  ASSERT_EQ(o.panels[0].curves.size(), 2u);
  const auto& causal = o.panels[0].curves[0].y;
  const auto& open = o.panels[0].curves[1].y;
  EXPECT_DOUBLE_EQ(o.result.rows[0].measured[0], *std::max_element(causal.begin(), causal.end()));
  EXPECT_DOUBLE_EQ(o.result.rows[1].measured[0], *std::max_element(open.begin(), open.end()));
  EXPECT_TRUE(o.result.pass()) << papers_table({o.result});
}

// Without the causal mask a model without positions cannot tell positions apart: its residual
// stream is permutation-equivariant (shuffled tokens give the shuffled rows, exactly). With the
// mask it is not. That is why the probe fails without it.
TEST(PaperTrained, RemovingTheCausalMaskMakesANoPositionModelPermutationEquivariant) {
  auto model = Checkpoint::open(kTrained / "copy-none");
  ASSERT_TRUE(model) << model.error();
  const std::vector<int> ids = {3, 1, 4, 1, 5, 9, 2, 6, 16, 3, 1, 4, 1, 5, 9, 2};
  std::vector<int> order(ids.size());
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin(), order.end());
  std::vector<int> shuffled;
  for (int k : order) shuffled.push_back(ids[static_cast<std::size_t>(k)]);
  const auto last_layer = [&](const std::vector<int>& x, bool causal_off) {
    ForwardOptions o;
    o.intervention.causal_off = causal_off;
    Matrix out;
    o.each_layer = [&](int, const Matrix& X) { out = X; };
    EXPECT_TRUE(run_forward(**model, x, o));
    return out;
  };
  for (bool off : {true, false}) {
    const Matrix a = last_layer(ids, off), b = last_layer(shuffled, off);
    double worst = 0.0;
    for (std::size_t r = 0; r < order.size(); ++r)
      worst = std::max(worst, static_cast<double>((b.row(static_cast<Eigen::Index>(r)) - a.row(order[r])).cwiseAbs().maxCoeff()));
    if (off) EXPECT_LT(worst, 1e-4) << "no mask: shuffled rows";
    else EXPECT_GT(worst, 1e-2) << "causal: positions matter";
  }
}

// --- Checks on an opened model (the NumPy reference's tiny folders, random weights) -----------

namespace {

const std::filesystem::path kModels = POSLAB_MODEL_REFERENCE;

Result<PaperOutcome> model_outcome(std::string_view id, const std::string& folder) {
  return run_paper_check(*find_paper_check(id), PaperInputs{kTrained, kModels / folder, true, nullptr, {}});
}

// The first 8 probe sentences as the model's tokens, each cut to `longest` (0: whole).
std::vector<std::vector<int>> sentences_of(const Checkpoint& model, std::size_t longest) {
  std::vector<std::vector<int>> all;
  for (int k = 0; k < 8; ++k) {
    auto ids = model_tokens(model, probe_sentences()[static_cast<std::size_t>(k)]);
    EXPECT_TRUE(ids);
    if (longest && ids->size() > longest) ids->resize(longest);
    all.push_back(*ids);
  }
  return all;
}

}  // namespace

TEST(PaperModel, SinksAreTheFirstColumnOfEveryLayersWeightsAveraged) {
  auto o = model_outcome("sinks", "gemma2");
  ASSERT_TRUE(o) << o.error();
  auto model = Checkpoint::open(kModels / "gemma2");
  ASSERT_TRUE(model);
  const int layers = (*model)->config().layers;
  std::vector<double> sink(static_cast<std::size_t>(layers), 0.0);
  const auto sentences = sentences_of(**model, 16);
  for (const auto& ids : sentences) {
    ForwardOptions f;
    f.all_layers = true;
    auto r = run_forward(**model, ids, f);
    ASSERT_TRUE(r) << r.error();
    for (const LayerAttention& a : r->layers) {
      double heads = 0.0;
      for (const Matrix& w : a.weights) heads += w.col(0).cast<double>().mean();
      sink[static_cast<std::size_t>(a.layer)] += heads / static_cast<double>(a.weights.size()) / static_cast<double>(sentences.size());
    }
  }
  const PaperCurve& curve = o->panels.at(0).curves.at(0);
  ASSERT_EQ(curve.y.size(), sink.size());
  for (std::size_t l = 0; l < sink.size(); ++l) EXPECT_NEAR(curve.y[l], sink[l], 1e-5) << "layer " << l;
  double above = 0.0;
  for (std::size_t l = 2; l < sink.size(); ++l) above += sink[l] / static_cast<double>(sink.size() - 2);
  EXPECT_NEAR(o->result.rows.at(0).measured.at(0), above, 1e-5);
}

TEST(PaperModel, MassiveActivationsAreTheLargestOfTheResidualStreamOverItsMedian) {
  auto o = model_outcome("massive-activations", "olmo3");
  ASSERT_TRUE(o) << o.error();
  auto model = Checkpoint::open(kModels / "olmo3");
  ASSERT_TRUE(model);
  double top = 0.0, median = 0.0;
  for (const auto& ids : sentences_of(**model, 0)) {
    ForwardOptions f;
    f.each_layer = [&](int, const Matrix& X) {
      const double m = X.cwiseAbs().maxCoeff();
      if (m <= top) return;
      top = m;
      std::vector<float> all(X.data(), X.data() + X.size());
      for (float& v : all) v = std::abs(v);
      std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(all.size() / 2), all.end());
      median = all[all.size() / 2];
    };
    ASSERT_TRUE(run_forward(**model, ids, f));
  }
  EXPECT_NEAR(o->result.rows.at(0).measured.at(0), top, 1e-4 * top);
  EXPECT_NEAR(o->result.rows.at(1).measured.at(0), top / median, 0.02 * top / median);  // the median of an even count: either middle
}

TEST(PaperModel, FrequencyUsageSaysWhyItCannotBeMade) {
  auto alibi = run_paper_check(*find_paper_check("frequency-usage"), PaperInputs{kTrained, kTrained / "copy-alibi", true, nullptr, {}});
  ASSERT_FALSE(alibi);
  EXPECT_NE(alibi.error().find("needs a RoPE model"), std::string::npos) << alibi.error();
  // Random weights: a verdict with finite values, or a refusal naming the heads it lacks.
  auto random = model_outcome("frequency-usage", "gemma2");
  if (random) {
    for (const PaperComparison& c : random->result.rows) EXPECT_TRUE(std::isfinite(c.measured.at(0)));
  } else {
    EXPECT_NE(random.error().find("positional heads"), std::string::npos) << random.error();
  }
}

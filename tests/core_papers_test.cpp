// "Papers, checked": the papers' quantities against an independent NumPy computation
// (tests/reference/make_papers_reference.py), and the registry's verdicts and outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/encodings/bias.hpp"
#include "core/papers/paper_math.hpp"
#include "core/papers/papers.hpp"
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
  if (it == cache.end()) it = cache.emplace(std::string(id), find_paper_check(id)->run()).first;
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

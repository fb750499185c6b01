// RoPE context-length scaling against NumPy transcriptions of Hugging Face's
// modeling_rope_utils (tests/reference), and the properties each method promises.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "core/encodings/encodings.hpp"
#include "base/random.hpp"
#include "core/encodings/rope_scaling.hpp"
#include "reference.hpp"

using namespace poslab;
using poslab::testing::reference;

namespace {

// Largest relative difference between θ' and a 1 × n reference row.
double max_rel_diff(const std::vector<double>& thetas, const std::string& name) {
  const Eigen::MatrixXd& ref = reference(name);
  EXPECT_EQ(ref.rows(), 1) << name;
  EXPECT_EQ(static_cast<std::size_t>(ref.cols()), thetas.size()) << name;
  if (static_cast<std::size_t>(ref.cols()) != thetas.size()) return 1e9;
  double worst = 0.0;
  for (std::size_t i = 0; i < thetas.size(); ++i)
    worst = std::max(worst, std::abs(thetas[i] - ref(0, static_cast<Eigen::Index>(i))) /
                                std::abs(ref(0, static_cast<Eigen::Index>(i))));
  return worst;
}

RopeScaling make(RopeScalingType type, double factor, int L) {
  RopeScaling s;
  s.type = type;
  s.factor = factor;
  s.original_max_position = L;
  return s;
}

RopeScaling llama32() { return make(RopeScalingType::Llama3, 32.0, 8192); }

}  // namespace

TEST(RopeScaling, NoneIsPlainRope) {
  const auto f = rope_frequencies(64, 10000.0, RopeScaling{}, 100000);
  EXPECT_LT(max_rel_diff(f.thetas, "enc_rs_none_d64_b10000"), 1e-13);
  EXPECT_EQ(f.thetas, rope_thetas(64, 10000.0));
  EXPECT_EQ(f.attention_scale, 1.0);
}

TEST(RopeScaling, LinearMatchesReference) {
  const auto f = rope_frequencies(64, 10000.0, make(RopeScalingType::Linear, 4.0, 2048), 0);
  EXPECT_LT(max_rel_diff(f.thetas, "enc_rs_linear_d64_b10000_s4"), 1e-13);
  EXPECT_EQ(f.attention_scale, 1.0);
}

TEST(RopeScaling, NtkMatchesReference) {
  EXPECT_LT(max_rel_diff(rope_frequencies(64, 10000.0, make(RopeScalingType::Ntk, 4.0, 2048), 0).thetas,
                         "enc_rs_ntk_d64_b10000_s4"), 1e-12);
  EXPECT_LT(max_rel_diff(rope_frequencies(128, 500000.0, make(RopeScalingType::Ntk, 32.0, 8192), 0).thetas,
                         "enc_rs_ntk_d128_b500000_s32"), 1e-12);
}

TEST(RopeScaling, DynamicMatchesReferenceAndIsNoneUpToL) {
  const auto c = make(RopeScalingType::Dynamic, 4.0, 2048);
  EXPECT_LT(max_rel_diff(rope_frequencies(64, 10000.0, c, 3000).thetas,
                         "enc_rs_dynamic_d64_b10000_s4_L2048_T3000"), 1e-12);
  EXPECT_LT(max_rel_diff(rope_frequencies(64, 10000.0, c, 2048).thetas,
                         "enc_rs_dynamic_d64_b10000_s4_L2048_T2048"), 1e-13);
  for (int T : {1, 100, 2047, 2048})
    EXPECT_EQ(rope_frequencies(64, 10000.0, c, T).thetas, rope_thetas(64, 10000.0)) << T;
  EXPECT_NE(rope_frequencies(64, 10000.0, c, 2049).thetas, rope_thetas(64, 10000.0));
}

TEST(RopeScaling, YarnMatchesHuggingFace) {
  struct Case {
    double base, s;
    int L;
    const char* name;
  };
  for (const Case& k : {Case{10000.0, 4.0, 2048, "enc_rs_yarn_d64_b10000_s4_L2048"},
                        Case{500000.0, 32.0, 8192, "enc_rs_yarn_d64_b500000_s32_L8192"},
                        // index(β_slow) ≈ 40 > d/2 − 1: HF's clamp to d − 1 is what is matched.
                        Case{100.0, 4.0, 2048, "enc_rs_yarn_d64_b100_s4_L2048"}}) {
    const auto f = rope_frequencies(64, k.base, make(RopeScalingType::Yarn, k.s, k.L), 0);
    EXPECT_LT(max_rel_diff(f.thetas, k.name), 1e-12) << k.name;
    EXPECT_NEAR(f.attention_scale, reference(std::string(k.name) + "_scale")(0, 0), 1e-15) << k.name;
    EXPECT_NEAR(f.attention_scale, 0.1 * std::log(k.s) + 1.0, 1e-15);
  }
}

TEST(RopeScaling, YarnAttentionScaleIsOneWithoutStretching) {
  EXPECT_EQ(rope_frequencies(64, 10000.0, make(RopeScalingType::Yarn, 1.0, 2048), 0).attention_scale, 1.0);
}

TEST(RopeScaling, Llama3MatchesReference) {
  EXPECT_LT(max_rel_diff(rope_frequencies(64, 500000.0, llama32(), 0).thetas,
                         "enc_rs_llama3_d64_b500000_s32_L8192"), 1e-13);
  EXPECT_LT(max_rel_diff(rope_frequencies(128, 500000.0, make(RopeScalingType::Llama3, 8.0, 8192), 0).thetas,
                         "enc_rs_llama3_d128_b500000_s8_L8192"), 1e-13);
  EXPECT_LT(max_rel_diff(rope_frequencies(64, 10000.0, make(RopeScalingType::Llama3, 4.0, 2048), 0).thetas,
                         "enc_rs_llama3_d64_b10000_s4_L2048"), 1e-13);
  EXPECT_EQ(rope_frequencies(64, 500000.0, llama32(), 0).attention_scale, 1.0);
}

TEST(RopeScaling, HighestFrequencyKeptExceptByLinear) {
  for (auto type : {RopeScalingType::Ntk, RopeScalingType::Yarn, RopeScalingType::Llama3,
                    RopeScalingType::Dynamic}) {
    const auto f = rope_frequencies(64, 10000.0, make(type, 8.0, 2048), 5000);
    EXPECT_DOUBLE_EQ(f.thetas[0], 1.0) << to_string(type);
  }
  EXPECT_DOUBLE_EQ(rope_frequencies(64, 10000.0, make(RopeScalingType::Linear, 8.0, 2048), 0).thetas[0], 1.0 / 8.0);
}

TEST(RopeScaling, LowestFrequencyInterpolated) {
  const double s = 8.0;
  const double lowest = rope_thetas(64, 10000.0).back();
  // Linear: every θ / s.
  EXPECT_DOUBLE_EQ(rope_frequencies(64, 10000.0, make(RopeScalingType::Linear, s, 2048), 0).thetas.back(), lowest / s);
  // Llama 3: λ_last = 2π·10000^(62/64) ≈ 46 000 > L/low = 2048, so θ/s.
  ASSERT_GT(2 * std::numbers::pi / lowest, 2048.0);
  EXPECT_DOUBLE_EQ(rope_frequencies(64, 10000.0, make(RopeScalingType::Llama3, s, 2048), 0).thetas.back(), lowest / s);
  // YaRN: index(β_slow) ≈ 20.1 → high = 21 < 31, so the last pair is fully interpolated.
  EXPECT_DOUBLE_EQ(rope_frequencies(64, 10000.0, make(RopeScalingType::Yarn, s, 2048), 0).thetas.back(), lowest / s);
  // NTK: θ'_last = (base·s^(d/(d−2)))^(−(d−2)/d) = θ_last / s exactly, in closed form.
  const double ntk = rope_frequencies(64, 10000.0, make(RopeScalingType::Ntk, s, 2048), 0).thetas.back();
  EXPECT_NEAR(ntk, std::pow(10000.0 * std::pow(s, 64.0 / 62.0), -62.0 / 64.0), 1e-18);
  EXPECT_NEAR(ntk, lowest / s, 1e-15);
}

TEST(RopeScaling, ScaledFrequenciesNeverExceedOriginal) {
  const auto plain = rope_thetas(64, 500000.0);
  for (auto type : {RopeScalingType::Linear, RopeScalingType::Ntk, RopeScalingType::Dynamic,
                    RopeScalingType::Yarn, RopeScalingType::Llama3}) {
    const auto f = rope_frequencies(64, 500000.0, make(type, 32.0, 8192), 20000);
    for (std::size_t i = 0; i < plain.size(); ++i) {
      EXPECT_LE(f.thetas[i], plain[i] * (1 + 1e-15)) << to_string(type) << " i=" << i;
      // Dynamic's effective scale s·T/L − (s − 1) may exceed s, so it has no lower bound here.
      if (type != RopeScalingType::Dynamic) {
        EXPECT_GE(f.thetas[i], plain[i] / 32.0 * (1 - 1e-15)) << to_string(type) << " i=" << i;
      }
    }
  }
}

TEST(RopeScaling, TinyRotaryWidthsAreSafe) {
  // d = 2: the only pair has θ₀ = 1 whatever the base, so NTK's exponent d/(d−2) is never used.
  for (auto type : {RopeScalingType::Ntk, RopeScalingType::Dynamic, RopeScalingType::Yarn}) {
    const auto f = rope_frequencies(2, 10000.0, make(type, 4.0, 16), 100);
    ASSERT_EQ(f.thetas.size(), 1u);
    EXPECT_TRUE(std::isfinite(f.thetas[0]));
  }
  EXPECT_TRUE(rope_frequencies(0, 10000.0, llama32(), 0).thetas.empty());
}

// (R_m q)·(R_n k) = q·R_{n−m} k still holds: scaling changes θ, not the rotation structure.
TEST(RopeScaling, RelativePropertySurvivesScaling) {
  const int d = 64;
  for (auto type : {RopeScalingType::Linear, RopeScalingType::Ntk, RopeScalingType::Dynamic,
                    RopeScalingType::Yarn, RopeScalingType::Llama3}) {
    const auto thetas = rope_frequencies(d, 500000.0, make(type, 32.0, 8192), 30000).thetas;
    Rng rng(99);
    for (int trial = 0; trial < 10; ++trial) {
      const Matrix q = gaussian_matrix(1, d, 1.0, mix_seed(17, static_cast<std::uint64_t>(trial)));
      const Matrix k = gaussian_matrix(1, d, 1.0, mix_seed(18, static_cast<std::uint64_t>(trial)));
      const int m = static_cast<int>(rng.next_u64() % 30000), n = static_cast<int>(rng.next_u64() % 30000);
      auto rotated = [&](const Matrix& v, int p) {
        Matrix r = v;
        const int pos[] = {p};
        apply_rope(r, pos, thetas, RopeStyle::Half);
        return r;
      };
      const double score = rotated(q, m).row(0).cast<double>().dot(rotated(k, n).row(0).cast<double>());
      const double relative = q.row(0).cast<double>().dot(rotated(k, n - m).row(0).cast<double>());
      EXPECT_NEAR(score, relative, 1e-3) << to_string(type) << " m=" << m << " n=" << n;
    }
  }
}

TEST(RopeScaling, NamesFollowHuggingFace) {
  EXPECT_EQ(to_string(RopeScalingType::None), "none");
  EXPECT_EQ(to_string(RopeScalingType::Linear), "linear");
  EXPECT_EQ(to_string(RopeScalingType::Ntk), "ntk");
  EXPECT_EQ(to_string(RopeScalingType::Dynamic), "dynamic");
  EXPECT_EQ(to_string(RopeScalingType::Yarn), "yarn");
  EXPECT_EQ(to_string(RopeScalingType::Llama3), "llama3");
}

TEST(RopeScaling, ValidateAcceptsDefaultsAndRealConfigs) {
  EXPECT_TRUE(validate(RopeScaling{}).ok());
  EXPECT_TRUE(validate(llama32()).ok());
  EXPECT_TRUE(validate(make(RopeScalingType::Yarn, 4.0, 32768)).ok());
  // None ignores the other fields.
  RopeScaling none;
  none.factor = 0.5;
  EXPECT_TRUE(validate(none).ok());
}

TEST(RopeScaling, ValidateRejectsWithClearMessages) {
  auto shrink = validate(make(RopeScalingType::Linear, 0.5, 2048));
  ASSERT_FALSE(shrink.ok());
  EXPECT_NE(shrink.error().find("factor"), std::string::npos) << shrink.error();
  EXPECT_NE(shrink.error().find("0.5"), std::string::npos) << shrink.error();
  EXPECT_FALSE(validate(make(RopeScalingType::Ntk, std::nan(""), 2048)).ok());

  auto length = validate(make(RopeScalingType::Dynamic, 2.0, 0));
  ASSERT_FALSE(length.ok());
  EXPECT_NE(length.error().find("original_max_position_embeddings"), std::string::npos);

  RopeScaling llama = llama32();
  llama.low_freq_factor = 4.0;
  llama.high_freq_factor = 1.0;
  auto order = validate(llama);
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.error().find("high_freq_factor > low_freq_factor"), std::string::npos) << order.error();
  llama.low_freq_factor = 0.0;
  llama.high_freq_factor = 4.0;
  EXPECT_FALSE(validate(llama).ok());

  RopeScaling yarn = make(RopeScalingType::Yarn, 4.0, 2048);
  yarn.beta_fast = 1.0;
  yarn.beta_slow = 32.0;
  auto betas = validate(yarn);
  ASSERT_FALSE(betas.ok());
  EXPECT_NE(betas.error().find("beta_fast > beta_slow"), std::string::npos) << betas.error();
  yarn.beta_fast = 32.0;
  yarn.beta_slow = 0.0;
  EXPECT_FALSE(validate(yarn).ok());
}

// Sweeps of a state option: the frame values, their spelling, and the state each frame gives.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/animate/sweep.hpp"
#include "core/options.hpp"
#include "core/tour/tour.hpp"

using namespace poslab;

TEST(AnimateSweep, FrameValuesRunFromAToBAndRoundForWholeOptions) {
  auto real = make_sweep("base", 100.0, 1000.0, 4);
  ASSERT_TRUE(real.ok()) << real.error();
  EXPECT_FALSE(real->param.integer);
  EXPECT_DOUBLE_EQ(sweep_value(*real, 0), 100.0);
  EXPECT_DOUBLE_EQ(sweep_value(*real, 1), 400.0);
  EXPECT_DOUBLE_EQ(sweep_value(*real, 2), 700.0);
  EXPECT_DOUBLE_EQ(sweep_value(*real, 3), 1000.0);

  // 0, 5/3, 10/3, 5 → 0, 2, 3, 5.
  auto whole = make_sweep("shift-k", 0.0, 5.0, 4);
  ASSERT_TRUE(whole.ok()) << whole.error();
  EXPECT_TRUE(whole->param.integer);
  EXPECT_EQ(sweep_value(*whole, 1), 2.0);
  EXPECT_EQ(sweep_value(*whole, 2), 3.0);
  EXPECT_EQ(sweep_value_text(*whole, 1), "2");
  EXPECT_EQ(sweep_value_text(*whole, 3), "5");

  // Downward sweeps work too.
  auto down = make_sweep("rope-m", 10.0, 0.0, 3);
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(sweep_value_text(*down, 1), "5");
}

TEST(AnimateSweep, ValueTextReadsBackAsTheSameDouble) {
  auto sweep = make_sweep("factor", 1.0, 2.0, 7);
  ASSERT_TRUE(sweep.ok());
  for (int k = 0; k < 7; ++k) {
    const double v = sweep_value(*sweep, k);
    auto parsed = parse_number(sweep_value_text(*sweep, k), "--factor");
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, v) << k;
  }
}

TEST(AnimateSweep, FrameStateIsTheStateTheOptionGives) {
  auto sweep = make_sweep("base", 500.0, 1500.0, 3);
  ASSERT_TRUE(sweep.ok());
  const State start;
  auto middle = sweep_state(start, *sweep, 1);
  ASSERT_TRUE(middle.ok()) << middle.error();
  State expected = start;
  ASSERT_TRUE(find_state_option("--base")->apply(expected, "1000").ok());
  EXPECT_EQ(*middle, expected);
  EXPECT_EQ(middle->model.base, 1000.0);

  auto positions = make_sweep("positions", 2.0, 8.0, 4);
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(sweep_state(start, *positions, 3)->view.trajectory_positions, 8);
  auto head = make_sweep("head", 0.0, 4.0, 5);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(sweep_state(start, *head, 2)->view.head, 2);
}

TEST(AnimateSweep, EveryParameterIsANumericStateOption) {
  for (const SweepParam& p : sweep_params()) {
    const StateOption* option = find_state_option("--" + std::string(p.name));
    ASSERT_NE(option, nullptr) << p.name;
    State s;
    EXPECT_TRUE(option->apply(s, "2").ok()) << p.name;
    // A fraction is refused by exactly the whole-number options.
    State t;
    EXPECT_EQ(option->apply(t, "2.5").ok(), !p.integer) << p.name;
  }
}

TEST(AnimateSweep, BadParametersAndFrameCountsAreClearErrors) {
  auto unknown = make_sweep("bogus", 0, 1, 3);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("unknown option \"bogus\""), std::string::npos) << unknown.error();
  auto text = make_sweep("encoding", 0, 1, 3);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().find("not a number"), std::string::npos) << text.error();
  auto dashed = make_sweep("--base", 0, 1, 3);
  ASSERT_FALSE(dashed.ok());
  EXPECT_NE(dashed.error().find("without the dashes"), std::string::npos) << dashed.error();
  auto one = make_sweep("base", 0, 1, 1);
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().find("between 2"), std::string::npos) << one.error();

  // Every frame's value must be one the option takes: --positions starts at 2.
  auto low = make_sweep("positions", 0.0, 10.0, 6);
  ASSERT_TRUE(low.ok());
  const Status checked = check_sweep(State{}, *low);
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.error().find("frame 0 (positions = 0)"), std::string::npos) << checked.error();
  auto fine = make_sweep("positions", 2.0, 10.0, 6);
  EXPECT_TRUE(check_sweep(State{}, *fine).ok());
}

TEST(AnimateSweep, TheArticlesAnimationsArePlayedByTourSteps3And5And6) {
  ASSERT_EQ(article_animations().size(), 3u);
  const EncodingKind expected[] = {EncodingKind::Integer, EncodingKind::Binary, EncodingKind::Sinusoidal};
  int n = 0;
  for (int step : {3, 5, 6}) {
    const ArticleAnimation* a = article_animation_for_step(step);
    ASSERT_NE(a, nullptr) << step;
    const State s = article_animation_state(*a, State{});
    EXPECT_EQ(s.model.encoding, expected[n++]) << a->name;
    EXPECT_EQ(s.model.sentence, "The dog chased another dog");
    auto sweep = make_sweep(a->param, a->from, a->to, a->frames);
    ASSERT_TRUE(sweep.ok()) << sweep.error();
    EXPECT_TRUE(check_sweep(s, *sweep).ok());
    // One position more per frame.
    for (int k = 1; k < sweep->frames; ++k) EXPECT_EQ(sweep_value(*sweep, k) - sweep_value(*sweep, k - 1), 1.0);
  }
  EXPECT_EQ(article_animation_for_step(4), nullptr);
}

// The play bar names the value in use: every parameter reads back what its option set.
TEST(AnimateSweep, EveryParameterReadsBackTheValueItsOptionSet) {
  for (const SweepParam& p : sweep_params()) {
    State state;
    const double value = p.name == "layer" ? 1.0 : p.name == "rope-fraction" ? 0.5 : p.name == "beta-slow" ? 2.0 : 3.0;
    auto sweep = make_sweep(p.name, value, value + 1.0, 2);
    ASSERT_TRUE(sweep.ok()) << sweep.error();
    ASSERT_TRUE(apply_sweep_value(state, *sweep, value).ok()) << p.name;
    EXPECT_DOUBLE_EQ(sweep->param.read(state), value) << p.name;
  }
}

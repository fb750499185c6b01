#pragma once
// A sweep of one numeric state option across the frames of an animation. Frame k of N shows
// from + k·(to − from)/(N − 1), rounded to the nearest whole number for a whole-number option,
// and is applied to the state through the option's own parser: a frame's state is exactly the
// state that `--PARAM value` on the command line gives.
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "core/state.hpp"

namespace poslab {

// A state option that can be animated: its name without dashes and whether it is whole.
struct SweepParam {
  std::string_view name;  // e.g. "base", "shift-k"
  bool integer = false;
  double (*read)(const State& state) = nullptr;  // the value the state holds now
};

// Every animatable option, in the order of the state options.
const std::vector<SweepParam>& sweep_params();
// The names joined by ", ", for help and error messages.
std::string sweep_param_names();
// The parameter named `name` (no dashes); the error says whether the name is unknown or names
// an option that is not a number.
Result<SweepParam> find_sweep_param(std::string_view name);

inline constexpr int kMaxSweepFrames = 100000;

struct Sweep {
  SweepParam param;
  double from = 0.0, to = 0.0;
  int frames = 2;
};

// Checks the parameter's name and the frame count (2 … kMaxSweepFrames).
Result<Sweep> make_sweep(std::string_view param, double from, double to, int frames);

// Frame k's value (k = 0 … frames − 1), rounded for a whole-number option.
double sweep_value(const Sweep& sweep, int k);
// The value as the command line would spell it: a whole number, or the shortest decimal text
// that reads back as the same double.
std::string sweep_value_text(const Sweep& sweep, double value);
std::string sweep_value_text(const Sweep& sweep, int k);

// Sets the parameter to `value` through its state option (`--PARAM text`).
Status apply_sweep_value(State& state, const Sweep& sweep, double value);
// The state of frame k: `start` with the parameter at frame k's value.
Result<State> sweep_state(const State& start, const Sweep& sweep, int k);
// Checks that every frame's value is accepted by the option; the error names the first frame
// whose value is not.
Status check_sweep(const State& start, const Sweep& sweep);

// A view's natural parameter and a range that shows it well, for its play control.
struct ViewSweep {
  std::string_view param;
  double from = 0.0, to = 0.0;
  std::string_view label;  // e.g. "offset k"
};
// A view's natural parameters are in its row of the view registry (figures/views.cpp).

// Seed 000's animations, each played by a step of the tour.
struct ArticleAnimation {
  std::string_view name;  // as the article names it
  int tour_step = 0;      // 1-based, as in `poslab export tour --step N`
  std::string_view view;  // the view that moves
  std::string_view param;
  double from = 0.0, to = 0.0;
  int frames = 0;
};
const std::vector<ArticleAnimation>& article_animations();
// The article animation played by tour step `step` (1-based), or null.
const ArticleAnimation* article_animation_for_step(int step);
// The state the animation starts from: the tour's state at its step, reached from `start`.
State article_animation_state(const ArticleAnimation& animation, const State& start);

}  // namespace poslab

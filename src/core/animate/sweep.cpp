#include "core/animate/sweep.hpp"

#include <charconv>
#include <cmath>

#include "core/options.hpp"
#include "core/tour/tour.hpp"

namespace poslab {

const std::vector<SweepParam>& sweep_params() {
  // The numeric state options (core/options.cpp); the others take names, files, text or pairs.
  static const std::vector<SweepParam> params = {
      {"learned-max", true, [](const State& s) { return static_cast<double>(s.model.learned_max); }},
      {"base", false, [](const State& s) { return static_cast<double>(s.model.base); }},
      {"rotary-dim", true, [](const State& s) { return static_cast<double>(s.model.rotary_dim); }},
      {"rope-fraction", false, [](const State& s) { return static_cast<double>(s.model.rope_fraction); }},
      {"factor", false, [](const State& s) { return static_cast<double>(s.model.scaling.factor); }},
      {"original-max-position", true, [](const State& s) { return static_cast<double>(s.model.scaling.original_max_position); }},
      {"low-freq-factor", false, [](const State& s) { return static_cast<double>(s.model.scaling.low_freq_factor); }},
      {"high-freq-factor", false, [](const State& s) { return static_cast<double>(s.model.scaling.high_freq_factor); }},
      {"beta-fast", false, [](const State& s) { return static_cast<double>(s.model.scaling.beta_fast); }},
      {"beta-slow", false, [](const State& s) { return static_cast<double>(s.model.scaling.beta_slow); }},
      {"buckets", true, [](const State& s) { return static_cast<double>(s.model.buckets); }},
      {"max-distance", true, [](const State& s) { return static_cast<double>(s.model.max_distance); }},
      {"clip", true, [](const State& s) { return static_cast<double>(s.model.clip); }},
      {"heads", true, [](const State& s) { return static_cast<double>(s.model.heads); }},
      {"kv-heads", true, [](const State& s) { return static_cast<double>(s.model.kv_heads); }},
      {"sigma", false, [](const State& s) { return static_cast<double>(s.model.sigma); }},
      {"seed", true, [](const State& s) { return static_cast<double>(s.model.seed); }},
      {"pad-to", true, [](const State& s) { return static_cast<double>(s.model.pad_to); }},
      {"head", true, [](const State& s) { return static_cast<double>(s.view.head); }},
      {"permute", true, [](const State& s) { return static_cast<double>(s.view.permutation); }},
      {"layer", true, [](const State& s) { return static_cast<double>(s.view.layer); }},
      {"position-shift", true, [](const State& s) { return static_cast<double>(s.model.position_shift); }},
      {"shift-k", true, [](const State& s) { return static_cast<double>(s.view.shift_k); }},
      {"rope-m", true, [](const State& s) { return static_cast<double>(s.view.rope_m); }},
      {"rope-n", true, [](const State& s) { return static_cast<double>(s.view.rope_n); }},
      {"rope-pair", true, [](const State& s) { return static_cast<double>(s.view.rope_pair); }},
      {"token", true, [](const State& s) { return static_cast<double>(s.view.trajectory_token); }},
      {"positions", true, [](const State& s) { return static_cast<double>(s.view.trajectory_positions); }},
      {"patch-x", true, [](const State& s) { return static_cast<double>(s.view.patch_x); }},
      {"patch-y", true, [](const State& s) { return static_cast<double>(s.view.patch_y); }},
  };
  return params;
}

std::string sweep_param_names() {
  std::string names;
  for (const SweepParam& p : sweep_params()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

Result<SweepParam> find_sweep_param(std::string_view name) {
  for (const SweepParam& p : sweep_params())
    if (p.name == name) return p;
  const std::string dashed = "--" + std::string(name);
  if (name.starts_with("-"))
    return Error{"--animate expects an option's name without the dashes (e.g. base, shift-k), got \"" +
                 std::string(name) + "\""};
  if (find_state_option(dashed))
    return Error{"--animate " + std::string(name) + ": " + dashed +
                 " is not a number and cannot be animated (numeric options: " + sweep_param_names() + ")"};
  return Error{"--animate: unknown option \"" + std::string(name) + "\" (numeric options: " + sweep_param_names() +
               ")"};
}

Result<Sweep> make_sweep(std::string_view param, double from, double to, int frames) {
  auto p = find_sweep_param(param);
  if (!p) return Error{p.error()};
  if (frames < 2 || frames > kMaxSweepFrames)
    return Error{"--frames must be between 2 and " + std::to_string(kMaxSweepFrames) + " for an animation, got " +
                 std::to_string(frames)};
  if (!std::isfinite(from) || !std::isfinite(to)) return Error{"--from and --to must be finite numbers"};
  return Sweep{*p, from, to, frames};
}

double sweep_value(const Sweep& sweep, int k) {
  const double v = sweep.from + k * (sweep.to - sweep.from) / (sweep.frames - 1);
  return sweep.param.integer ? std::round(v) : v;
}

std::string sweep_value_text(const Sweep& sweep, double value) {
  if (sweep.param.integer) return std::to_string(static_cast<long long>(std::llround(value)));
  char buf[64];
  // Shortest text that reads back as the same double (from_chars in parse_number).
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : std::string();
}

std::string sweep_value_text(const Sweep& sweep, int k) { return sweep_value_text(sweep, sweep_value(sweep, k)); }

Status apply_sweep_value(State& state, const Sweep& sweep, double value) {
  const std::string name = "--" + std::string(sweep.param.name);
  const StateOption* option = find_state_option(name);
  if (!option) return Error{name + " is not a state option"};
  return option->apply(state, sweep_value_text(sweep, value));
}

Result<State> sweep_state(const State& start, const Sweep& sweep, int k) {
  State state = start;
  if (auto s = apply_sweep_value(state, sweep, sweep_value(sweep, k)); !s) return Error{s.error()};
  return state;
}

Status check_sweep(const State& start, const Sweep& sweep) {
  for (int k = 0; k < sweep.frames; ++k)
    if (auto s = sweep_state(start, sweep, k); !s)
      return Error{"frame " + std::to_string(k) + " (" + std::string(sweep.param.name) + " = " +
                   sweep_value_text(sweep, k) + "): " + s.error()};
  return Ok{};
}

const std::vector<ArticleAnimation>& article_animations() {
  // Each plays over the positions of the trajectory view, the path of a token plus PE(p), in
  // the state of the tour step that makes the point.
  static const std::vector<ArticleAnimation> animations = {
      {"Integer position added to \"chased\"", 3, "trajectory", "positions", 2.0, 64.0, 63},
      {"Binary position as the index runs", 5, "trajectory", "positions", 2.0, 64.0, 63},
      {"Sinusoidal position beside it", 6, "trajectory", "positions", 2.0, 64.0, 63},
  };
  return animations;
}

const ArticleAnimation* article_animation_for_step(int step) {
  for (const ArticleAnimation& a : article_animations())
    if (a.tour_step == step) return &a;
  return nullptr;
}

State article_animation_state(const ArticleAnimation& animation, const State& start) {
  State state = tour_state(animation.tour_step - 1, start);
  state.view.trajectory_token = 2;  // "chased" in the tour's sentence, "The dog chased another dog"
  return state;
}

}  // namespace poslab

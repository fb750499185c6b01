#pragma once
// The trajectory view: one token's embedding plus PE(p) for p = 0 … P − 1, drawn in a PCA plane
// or two chosen dimensions, for the binary and sinusoidal codes side by side (and the chosen
// additive encoding when it is another), with the length of every step below: the binary path
// jumps where many bits flip, the sinusoid moves the same distance at every step.
#include <string>

#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "ui/figure_fit.hpp"
#include "ui/figure_worker.hpp"

namespace poslab {

class Workspace;

plot::Figure trajectory_figure(const State& state, const Results& results, float side);
// The same, its panels as large as fit `room` (points).
plot::Figure trajectory_figure_to_fill(const State& state, const Results& results, plot::Point room,
                                       Overflow overflow = Overflow::Shrink);
std::string trajectory_csv(const State& state, const Results& results);

class TrajectoryView {
 public:
  void draw(State& state, const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  FigureWorker<plot::Figure> figure_;  // built off the UI thread
  plot::TextureCache textures_;
  std::uint64_t built_version_ = 0;
  ViewSettings built_view_;
  Refit refit_;  // when to lay the figure out again
};

}  // namespace poslab

#pragma once
// The shift view: for every pair of the sinusoid, how far PE(p+k) is from M_k·PE(p) (float
// rounding only), and the 2 × 2 matrices M_k themselves.
#include <string>

#include "core/state.hpp"
#include "plot/draw.hpp"
#include "ui/figure_fit.hpp"
#include "ui/figure_worker.hpp"

namespace poslab {

class Workspace;

inline constexpr int kShiftPositions = 512;

plot::Figure shift_figure(const State& state, int width, float plot_width, float plot_height);
// The same, its plotting area as large as fits `room` (points).
plot::Figure shift_figure_to_fill(const State& state, int width, plot::Point room,
                                  Overflow overflow = Overflow::Shrink);
std::string shift_csv(const State& state, int width);

class ShiftView {
 public:
  void draw(State& state, const Workspace& workspace, const plot::FontSet& fonts);
  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  FigureWorker<plot::Figure> figure_;  // built off the UI thread
  plot::TextureCache textures_;
  State built_for_;
  int built_width_ = -1;
  Refit refit_;  // when to lay the figure out again
};

}  // namespace poslab

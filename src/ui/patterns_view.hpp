#pragma once
// The patterns view: the position × dimension table of an additive encoding, and chosen
// dimensions against position. Binary and sinusoidal encodings are shown side by side with the
// same range and colormap, so the jump of a bit and the smooth turn of a sinusoid compare.
#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "ui/figure_fit.hpp"
#include "ui/figure_worker.hpp"

namespace poslab {

class Workspace;

inline constexpr int kPatternPositions = 64;

plot::Figure patterns_figure(const ModelSettings& settings, int width, float side);
// The same, its panels as large as fit `room` (points).
plot::Figure patterns_figure_to_fill(const ModelSettings& settings, int width, plot::Point room,
                                     Overflow overflow = Overflow::Shrink);

// header `encoding,position,dimension,value`.
std::string patterns_csv(const ModelSettings& settings, int width);

class PatternsView {
 public:
  void draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  FigureWorker<plot::Figure> figure_;  // built off the UI thread
  plot::TextureCache textures_;
  ModelSettings built_for_;
  int built_width_ = -1;
  Refit refit_;  // when to lay the figure out again
};

}  // namespace poslab

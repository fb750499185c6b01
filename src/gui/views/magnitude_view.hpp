#pragma once
// The GUI part of the magnitude view (its figure: figures/magnitude.hpp).
#include "figures/magnitude.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {

class Workspace;

class MagnitudeView {
 public:
  void draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  FigureWorker<plot::LinePlotFigure> figure_;  // built off the UI thread
  plot::TextureCache textures_;
  std::uint64_t built_version_ = 0;
  Refit refit_;  // when to lay the figure out again
};

}  // namespace poslab

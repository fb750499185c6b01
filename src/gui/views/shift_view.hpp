#pragma once
// The GUI part of the shift view (its figure: figures/shift.hpp).
#include "figures/shift.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {

class Workspace;

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

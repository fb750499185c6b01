#pragma once
// The GUI part of the rope2d view (its figure: figures/rope2d.hpp).
#include "figures/rope2d.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {

class Workspace;

class Rope2dView {
 public:
  void draw(State& state, const plot::FontSet& fonts);
  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  FigureWorker<plot::Figure> figure_;  // built off the UI thread
  plot::TextureCache textures_;
  State built_for_;
  bool built_ = false;
  Refit refit_;  // when to lay the figure out again
};

}  // namespace poslab

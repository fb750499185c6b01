#pragma once
// The GUI part of the rope-image view (its figure: figures/rope_image.hpp).
#include "figures/rope_image.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {


class RopeImageView {
 public:
  void draw(State& state, const plot::FontSet& fonts);
  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  FigureWorker<RopeImageFigure> figure_;  // built off the UI thread
  plot::TextureCache textures_;
  State built_for_;
  bool built_ = false;
  Refit refit_;  // when to lay the figure out again
};

}  // namespace poslab

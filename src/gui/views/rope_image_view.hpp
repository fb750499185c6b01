#pragma once
// The GUI part of the rope-image view (its figure: figures/rope_image.hpp).
#include "figures/rope_image.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {


class RopeImageView {
 public:
  void draw(State& state, const plot::FontSet& fonts);
  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  ViewFigure<RopeImageFigure, State> figure_;  // for the state
};

}  // namespace poslab

#pragma once
// The GUI part of the rope2d view (its figure: figures/rope2d.hpp).
#include "figures/rope2d.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {

class Workspace;

class Rope2dView {
 public:
  void draw(State& state, const plot::FontSet& fonts);
  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  ViewFigure<plot::Figure, State> figure_;  // for the state
};

}  // namespace poslab

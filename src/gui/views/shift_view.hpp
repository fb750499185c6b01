#pragma once
// The GUI part of the shift view (its figure: figures/shift.hpp).
#include <tuple>

#include "figures/shift.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {

class Workspace;

class ShiftView {
 public:
  void draw(State& state, const Workspace& workspace, const plot::FontSet& fonts);
  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  ViewFigure<plot::Figure, std::tuple<State, int>> figure_;  // for the state and the embedding width
};

}  // namespace poslab

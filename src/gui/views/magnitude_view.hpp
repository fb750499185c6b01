#pragma once
// The GUI part of the magnitude view (its figure: figures/magnitude.hpp).
#include "figures/magnitude.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {

class Workspace;

class MagnitudeView {
 public:
  void draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  ViewFigure<plot::LinePlotFigure, std::uint64_t> figure_;  // for the results' version
};

}  // namespace poslab

#pragma once
// The GUI part of the patterns view (its figure: figures/patterns.hpp).
#include <tuple>

#include "figures/patterns.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {

class Workspace;

class PatternsView {
 public:
  void draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  ViewFigure<plot::Figure, std::tuple<ModelSettings, int>> figure_;  // for the model and the embedding width
};

}  // namespace poslab

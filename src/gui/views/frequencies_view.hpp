#pragma once
// The GUI part of the frequencies view (its figure: figures/frequencies.hpp).
#include <tuple>

#include "figures/frequencies.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {

class Workspace;

class FrequenciesView {
 public:
  void draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  ViewFigure<plot::LinePlotFigure, std::tuple<ModelSettings, int>> figure_;  // for the model and its rotary width
};

}  // namespace poslab

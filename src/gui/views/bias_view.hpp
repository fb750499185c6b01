#pragma once
// The GUI part of the bias view (its figure: figures/bias.hpp).
#include <tuple>

#include "figures/bias.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {

class Workspace;

class BiasView {
 public:
  void draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  // T × T matrices at any length; for the results' version and the view settings.
  ViewFigure<plot::Figure, std::tuple<std::uint64_t, ViewSettings>> figure_;
};

}  // namespace poslab

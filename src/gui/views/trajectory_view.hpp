#pragma once
// The GUI part of the trajectory view (its figure: figures/trajectory.hpp).
#include <tuple>

#include "figures/trajectory.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {

class Workspace;

class TrajectoryView {
 public:
  void draw(State& state, const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  ViewFigure<plot::Figure, std::tuple<std::uint64_t, ViewSettings>> figure_;  // for the results' version and the view
};

}  // namespace poslab

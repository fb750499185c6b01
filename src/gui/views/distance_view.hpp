#pragma once
// The GUI part of the distance view (its figure: figures/distance.hpp).
#include "figures/distance.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {

class Workspace;

class DistanceView {
 public:
  void draw(const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return built_.busy(); }

 private:
  // The profile (a pass over every head's T × T weights) and its figure, built off the UI thread.
  struct Built {
    DistanceProfile profile;
    plot::LinePlotFigure figure;
  };
  ViewFigure<Built, std::uint64_t> built_;  // for the results' version
};

}  // namespace poslab

#pragma once
// The GUI part of the bias view (its figure: figures/bias.hpp).
#include "figures/bias.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {

class Workspace;

class BiasView {
 public:
  void draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts);

  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }

 private:
  FigureWorker<plot::Figure> figure_;  // built off the UI thread: T × T matrices at any length
  plot::TextureCache textures_;
  std::uint64_t built_version_ = 0;
  ViewSettings built_view_;
  Refit refit_;  // when to lay the figure out again
};

}  // namespace poslab

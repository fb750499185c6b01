#pragma once
// The tour: seed 000's derivation one step at a time. Each step shows its words (English or
// Japanese), its formulas, its live check with a pass or fail mark computed now, and its plot,
// drawn as one figure that exports as a slide.
#include <optional>
#include <string>
#include <vector>

#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "core/tour/tour.hpp"
#include "plot/draw.hpp"
#include "ui/figure_fit.hpp"
#include "ui/figure_worker.hpp"

namespace poslab {

class Workspace;

// The whole step as one figure: title, words, formulas, the live check and the plot.
Result<plot::Figure> tour_figure(int step, Language language, const State& state, const Results& results,
                                 const EmbeddingTable& table);
// The same slide on screen, filling `room` (points): the words wrap to the room's width (at
// least kTourMinFillWidth) and the plot takes the height left below them (at least
// kTourMinPlotHeight; a taller slide scrolls).
inline constexpr float kTourMinFillWidth = 480.0f, kTourMinPlotHeight = 240.0f;
Result<plot::Figure> tour_figure_to_fill(int step, Language language, const State& state, const Results& results,
                                         const EmbeddingTable& table, plot::Point room);

// One row per step: step,title,pass,measured (the live checks of `state`'s tour states).
std::string tour_csv(Language language, const State& start, const EmbeddingTable& table);

class TourView {
 public:
  // Starts the tour (first time the tab opens): remembers the reader's own state to go back to.
  void enter(State& state);
  // Moves to step k; the step's state is the reader's own if they were there before, else the
  // step's preset applied to the current state.
  void go_to(int k, State& state);
  void next(State& state) { go_to(step_ + 1, state); }
  void previous(State& state) { go_to(step_ - 1, state); }
  void draw(State& state, const Workspace& workspace, const plot::FontSet& fonts);

  int step() const { return step_; }
  // A slide for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }
  Language language = Language::En;

 private:
  bool started_ = false;
  int step_ = 0;
  std::vector<std::optional<State>> visited_;
  State before_tour_;
  FigureWorker<plot::Figure> figure_;  // built off the UI thread
  plot::TextureCache textures_;
  std::uint64_t built_version_ = 0;
  State built_state_;
  int built_step_ = -1;
  Language built_language_ = Language::En;
  Refit refit_;  // when to lay the figure out again
};

}  // namespace poslab

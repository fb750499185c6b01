#pragma once
// The GUI part of the tour view (its figure: figures/tour.hpp).
#include <tuple>

#include "figures/tour.hpp"
#include "gui/views/view_figure.hpp"

namespace poslab {

class Workspace;

class TourView {
 public:
  // Starts the tour when its tab comes to the front: remembers the reader's own state to go back
  // to and shows step 1 (a tour already under way goes on where it was).
  void enter(State& state);
  // Ends the tour: the reader's state exactly as it was before entering. The next enter starts
  // afresh at step 1.
  void leave(State& state);
  bool started() const { return started_; }
  // Moves to step k; the step's state is the reader's own if they were there before, else the
  // step's preset applied to the current state.
  void go_to(int k, State& state);
  void next(State& state) { go_to(step_ + 1, state); }
  void previous(State& state) { go_to(step_ - 1, state); }
  // The navigation row (previous, next, step, language, leave); true when *Leave the tour* was
  // pressed (the tour has then given the state back). Its buttons stay where they are on every
  // step: what a step adds goes below the row.
  bool draw_navigation(State& state, const plot::FontSet& fonts);
  // The step's slide, below the navigation row.
  void draw_slide(const State& state, const Workspace& workspace, const plot::FontSet& fonts);

  int step() const { return step_; }
  // A slide for the newest settings is still being built (or not yet shown).
  bool busy() const { return figure_.busy(); }
  Language language = Language::En;

 private:
  bool started_ = false;
  int step_ = 0;
  std::vector<std::optional<State>> visited_;
  State before_tour_;
  // A slide for the step, its language, the results' version and the state.
  ViewFigure<plot::Figure, std::tuple<int, Language, std::uint64_t, State>> figure_;
};

}  // namespace poslab

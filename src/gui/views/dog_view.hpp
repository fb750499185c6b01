#pragma once
// The GUI part of the dog view (its figure: figures/dog.hpp).
#include "base/newest_worker.hpp"
#include "figures/dog.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {

class Workspace;

class DogView {
 public:
  void draw(State& state, const Workspace& workspace, const plot::FontSet& fonts);
  // A run is in flight (a scripted screenshot waits for it).
  bool busy() const { return runs_.busy(); }

 private:
  std::optional<DogData> data_;
  plot::Figure figure_;
  std::string error_;
  plot::TextureCache textures_;
  ModelSettings built_for_;
  std::uint64_t built_table_ = 0;
  Refit refit_;  // when to lay the figure out again
  int built_permutation_ = 0;
  bool data_changed_ = false;  // data_ arrived since the figure was built
  // The cases run the attention four times (and twice more when shuffled): on a worker thread, so
  // that a long sentence never stops the window; a newer setting drops a stale run's result.
  // Last: its thread is joined (waiting for a run still going) before the members above go.
  NewestWorker<Result<DogData>> runs_;
};

}  // namespace poslab

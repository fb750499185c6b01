#pragma once
// The GUI part of the dog view (its figure: figures/dog.hpp).
#include "figures/dog.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {

class Workspace;

class DogView {
 public:
  DogView() = default;
  DogView(const DogView&) = delete;
  DogView& operator=(const DogView&) = delete;
  ~DogView();  // waits for a run still going

  void draw(State& state, const Workspace& workspace, const plot::FontSet& fonts);
  // A run is in flight (a scripted screenshot waits for it).
  bool busy() const { return !jobs_.empty(); }

 private:
  // The cases run the attention four times (and twice more when shuffled): on a worker thread, so
  // that a long sentence never stops the window; a newer setting drops a stale run's result.
  struct Job {
    std::thread thread;
    std::atomic<bool> done{false};
    std::optional<Result<DogData>> result;  // written before done is set
  };
  std::vector<std::unique_ptr<Job>> jobs_;  // the last one is current
  std::optional<DogData> data_;
  plot::Figure figure_;
  std::string error_;
  plot::TextureCache textures_;
  ModelSettings built_for_;
  std::uint64_t built_table_ = 0;
  Refit refit_;  // when to lay the figure out again
  int built_permutation_ = 0;
  bool data_changed_ = false;  // data_ arrived since the figure was built
};

}  // namespace poslab

#pragma once
// The dog view: the outputs of the two "dog"s of "The dog chased another dog" side by side, for
// no positions without and with the causal mask, sinusoidal and RoPE: identical only in the
// first case, because self-attention is permutation-equivariant.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/attention/dog.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "ui/figure_fit.hpp"

namespace poslab {

class Workspace;

// `width` is the cell area's width of every panel, `row_height` the height of a row of the four
// cases (the shuffle's rows are three quarters of it); exports use 640 and 24.
Result<plot::Figure> dog_figure(const State& state, const EmbeddingTable& table, float width, float row_height = 24.0f);
// The same, its panels as large as fit `room` (points).
Result<plot::Figure> dog_figure_to_fill(const State& state, const EmbeddingTable& table, plot::Point room,
                                        Overflow overflow = Overflow::Shrink);
Result<std::string> dog_csv(const State& state, const EmbeddingTable& table);

// What the figure shows, computed once: the four cases and, when shuffling, the permutation check.
struct DogData {
  std::vector<DogCase> cases;
  std::optional<PermutationCheck> check;
};
Result<DogData> dog_data(const State& state, const EmbeddingTable& table);
// The figure of computed data (layout only: no attention runs here).
plot::Figure dog_figure(const DogData& data, const State& state, float width, float row_height = 24.0f);

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

#pragma once
// The dog view: the outputs of the two "dog"s of "The dog chased another dog" side by side, for
// no positions without and with the causal mask, sinusoidal and RoPE: identical only in the
// first case, because self-attention is permutation-equivariant.
#include <string>

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

class DogView {
 public:
  void draw(State& state, const Workspace& workspace, const plot::FontSet& fonts);

 private:
  plot::Figure figure_;
  std::string error_;
  plot::TextureCache textures_;
  ModelSettings built_for_;
  std::uint64_t built_table_ = 0;
  Refit refit_;  // when to lay the figure out again
  int built_permutation_ = 0;
};

}  // namespace poslab

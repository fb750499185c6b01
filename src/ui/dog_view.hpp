#pragma once
// The dog view: the outputs of the two "dog"s of "The dog chased another dog" side by side, for
// no positions without and with the causal mask, sinusoidal and RoPE: identical only in the
// first case, because self-attention is permutation-equivariant.
#include <string>

#include "core/attention/dog.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"

namespace poslab {

class Workspace;

Result<plot::Figure> dog_figure(const State& state, const EmbeddingTable& table, float width);
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
  float built_width_ = 0;
  int built_permutation_ = 0;
};

}  // namespace poslab

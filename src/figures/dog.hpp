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
#include "figures/fit.hpp"

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

// The data's figure as large as fits `room` (layout only: no attention runs here).
plot::Figure dog_figure_fitted(const DogData& data, const State& state, plot::Point room, Overflow overflow);

}  // namespace poslab

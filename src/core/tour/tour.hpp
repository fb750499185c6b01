#pragma once
// The tour through seed 000's derivation: for each step, the preset that sets the views up to
// make its point, the plot it shows, and the live check behind its claim, computed now from the
// core (never a stored verdict). The words are in core/tour_text.hpp.
#include <string>
#include <vector>

#include "core/formats/embeddings.hpp"
#include "core/state.hpp"
#include "core/tour/tour_text.hpp"

namespace poslab {

// What a live check measured: its numbers, labelled in the reader's language.
struct TourCheck {
  bool pass = false;
  std::string measured;
};

struct TourStep {
  // The plot: a view name of `poslab export` ("dog", "patterns", …) or one of the tour's own
  // figures: "properties", "normalized", "relative", "norms".
  std::string plot;
  void (*preset)(State& state);  // changes only what the step is about
  TourCheck (*check)(const State& state, const EmbeddingTable& table, Language language);
};

const std::vector<TourStep>& tour_steps();

// The state of step `step` (0-based) for a reader who walked from `start` through the steps
// before it: each step's preset in turn, as the GUI's Next does.
State tour_state(int step, State start);

// Step 2's table: property n (0 … 4) in a few words, and where PosLab tests it.
const std::string& tour_property(Language language, int n);
const std::string& tour_property_test(Language language, int n);  // "→ step 7: the shift view"

// Step 9's numbers, for its check and its plot alike: the norm of the sentence's second token
// (the first when there is one) with PE(p) added, and rotated by RoPE, for p = 0 … positions − 1.
struct NormCurves {
  std::string token;
  double norm = 0.0;                     // ‖x‖
  std::vector<double> added, rotated;    // ‖x + PE(p)‖, ‖R_p x‖
};
Result<NormCurves> added_and_rotated_norms(const ModelSettings& settings, const EmbeddingTable& table, int positions);

// Every Japanese string of the tour and its controls, for baking only the glyphs in use.
std::string tour_japanese_text();

// The words of the controls: index 0 previous, 1 next, 2 "Step", 3 "Live check", 4 pass, 5 fail,
// 6 "Leave the tour", 7 the language's own name, 8 "yes", 9 "no", 10 the arrow keys' hint,
// 11 "Play the article's animation".
const std::string& tour_word(Language language, int index);

}  // namespace poslab

#pragma once
// Line breaking for figure text: at spaces in Latin text, between any two characters in
// Japanese (which has no spaces), never inside a word that fits on a line of its own.
#include <string>
#include <vector>

#include "plot/figure.hpp"

namespace poslab::plot {

// Splits `text` into lines no wider than `width` at font `size` (a single unbreakable word wider
// than `width` gets a line of its own).
std::vector<std::string> wrap_text(const std::string& text, float width, float size, const TextMeasure& measure);

}  // namespace poslab::plot

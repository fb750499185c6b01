#pragma once
// The words of the tour through seed 000's derivation, in English and Japanese. The numbers
// behind each claim are computed live by core/tour.cpp; these strings never state a verdict.
#include <string>
#include <vector>

namespace poslab {

enum class Language { En, Ja };

struct TourText {
  std::string title;                  // a few words
  std::string body;                   // three to six sentences, one paragraph
  std::vector<std::string> formulas;  // Unicode lines (no LaTeX), one formula per line
  std::string check;                  // one sentence: what the live check below verifies
};

// The twelve steps, in order, in one language.
const std::vector<TourText>& tour_texts(Language language);

}  // namespace poslab

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

// What each step's live check measured, one printf format per step: core/tour.cpp fills in the
// numbers it computed, in the order of the conversions, which are the same in both languages
// (a test compares them).
const std::vector<std::string>& tour_measured_formats(Language language);

// The words of the tour's own plots (steps 4, 8 and 9); "%s" stands for a token.
struct TourFigureWords {
  std::string position_axis;                          // "position p"
  std::string normalized_title, normalized_subtitle;  // step 4
  std::string absolute_position, relative_to;         // step 8: "relative to “%s”"
  std::string norms_title, norms_subtitle, norm_axis, added_legend, rotated_legend;  // step 9
};
const TourFigureWords& tour_figure_words(Language language);

}  // namespace poslab

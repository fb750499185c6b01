#pragma once
// Positions across training (`poslab export training`, and the Model tab's training view): per
// head of one layer, the previous-token, induction, first-token (sink) and mean-distance scores
// against the training step, with the loss — when each positional head forms.
#include <string>
#include <vector>

#include "figures/training_run.hpp"
#include "plot/figure.hpp"

namespace poslab {

// Export size of one panel's plotting area (logical pixels).
inline constexpr plot::Point kTrainingPanel{360.0f, 220.0f};

// Five panels (previous token, induction, sink, distance; loss), one line per head. The x axis
// is the step when every revision is named stepN, else the revisions in the order given.
plot::Figure training_figure(const std::vector<hub::RevisionStats>& rows, int layer, const std::string& model, plot::Point panel);

}  // namespace poslab

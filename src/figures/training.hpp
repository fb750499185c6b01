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
// The smallest plotting area the window narrows a panel to before it lets the figure be shrunk.
inline constexpr plot::Point kTrainingMinPanel{200.0f, 220.0f};

// Five panels (previous token, induction, sink, distance; loss), one line per head, in rows of
// `columns` panels. The x axis is the step when every revision is named stepN, else the
// revisions in the order given.
plot::Figure training_figure(const std::vector<hub::RevisionStats>& rows, int layer, const std::string& model, plot::Point panel,
                             int columns = 3);
// The figure for a room `width` points wide, its text at its own size: the panels in as many
// columns as fit (three, two, one) with their plotting areas narrowed to share the room, down to
// the smallest; the figure grows downwards rather than being shrunk to the room.
plot::Figure training_figure_to_fit(const std::vector<hub::RevisionStats>& rows, int layer, const std::string& model, float width);

}  // namespace poslab

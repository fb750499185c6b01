#pragma once
// "Papers, checked": a check's figure (PosLab's curves with the published values beside them),
// drawn from the panels core/papers computes; `poslab export paper` writes it.
#include "core/papers/papers.hpp"
#include "plot/figure.hpp"

namespace poslab {

// The panels side by side, each titled with its paper; PosLab's curves solid, published values as
// dots, published formulas and fits dashed.
plot::Figure paper_figure(const PaperCheck& check, const std::vector<PaperPanel>& panels);

}  // namespace poslab

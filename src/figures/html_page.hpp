#pragma once
// A figure as one self-contained HTML page that answers the pointer: the figure as PosLab draws
// it (its SVG), and for each heatmap panel in it the values of the cell under the pointer (query,
// key, score, weight) as the CSV writes them, with a head selector. No request leaves the page:
// no script, style or font is fetched. `--html FILE` (export attention, export heads), the GUI's
// export menu and Python's .to_html() write it.
#include <string>
#include <vector>

#include "core/attention/pipeline.hpp"
#include "figures/model.hpp"

namespace poslab {

// The attention view of `results` (the embeddings' pipeline, or a model layer's), one figure per
// head, the selector choosing among them. A refusal when the page would hold too many cells.
Result<std::string> attention_page(const State& state, const Results& results);

// Any other figure as a page of its own (its SVG and title, nothing to answer the pointer with):
// what Python's .to_html() and .save("x.html") give for the views without heatmap cells.
std::string static_page(const plot::Figure& figure, const std::string& title);

// The heads grid of a model run's kept layer: one figure, every thumbnail answering for its head;
// the selector outlines the chosen head's thumbnails.
Result<std::string> heads_page(const ModelRun& run, const TransformerConfig& config);

}  // namespace poslab

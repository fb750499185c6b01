#pragma once
// The view registry: every view PosLab draws, said once. The command line's VIEW names, `--view`,
// the GUI's tabs, Export all views, animations and the tour read this table; a new view is a row.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/animate/sweep.hpp"
#include "core/attention/pipeline.hpp"
#include "core/state.hpp"
#include "core/tour/tour_text.hpp"
#include "figures/fit.hpp"
#include "plot/figure.hpp"

namespace poslab {

// A view's identity. The first eleven are the explorer's tabs (in their order), then the tour,
// the Model and Train tabs, and the views drawn inside those two.
enum class ViewId {
  Attention, Dog, Patterns, Trajectory, Magnitude, Shift, Rope2d, RopeImage, Bias, Frequencies, Distance,
  Tour, Model, Train, Papers,
  Heads, FrequencyUsage, Mrope, Sinks, Activations, PairScores, PositionProbe,  // in the Model tab
  Extrapolation,          // in the Train tab
};

// What a view is drawn from.
enum class ViewNeeds {
  Embeddings,     // the embeddings table and the state's pipeline (the explorer's views)
  Model,          // a model folder's own forward pass (--model DIR)
  TrainedModels,  // trained model folders (--models DIR,DIR,...)
  Papers,         // the papers' checks (poslab papers check; their figures: poslab export paper --id ID)
};

// What the explorer's views are drawn from.
struct ViewInputs {
  const State& state;
  const Results& results;
  const EmbeddingTable& table;
  int head_dim = 0;      // frequencies: the head width (0: the state's d_h)
  float scale = 1.0f;    // the PNG's pixels per point (the attention heatmap's texels follow it)
  int tour_step = 0;     // tour: the step (0-based)
  Language language = Language::En;
};

struct ViewInfo {
  ViewId id;
  std::string_view name;  // `poslab export VIEW`, `--view VIEW`
  std::string_view tab;   // the GUI tab's label
  ViewId home;            // the tab it is drawn in (itself for a tab)
  ViewNeeds needs;
  bool in_all_views;      // one of the files of Export all views (`poslab export all`)
  // The figure at its export size, its CSV, and the figure filling `room` (points) as its tab
  // draws it; null where the view is not drawn from the embeddings (see figures/model.hpp).
  Result<plot::Figure> (*figure)(const ViewInputs&) = nullptr;
  Result<std::string> (*csv)(const ViewInputs&) = nullptr;
  Result<plot::Figure> (*figure_to_fill)(const ViewInputs&, plot::Point room, Overflow overflow) = nullptr;

  bool is_tab() const { return home == id; }
  // The parameters an animation of the view sweeps, its natural one first.
  std::vector<ViewSweep> sweeps() const { return view_sweeps(name); }
};

// Every view, in the order of the GUI's tabs, then the views inside the Model and Train tabs.
const std::vector<ViewInfo>& view_registry();
const ViewInfo& view_info(ViewId view);
// The view of a VIEW name; nullopt for any other name.
std::optional<ViewId> view_named(std::string_view name);
// The names of the views `filter` accepts, joined by ", ".
std::string view_names_where(bool (*filter)(const ViewInfo&));

// Why `view` cannot be drawn from the embeddings alone (it needs a model folder or trained models).
std::string needs_message(const ViewInfo& view);

}  // namespace poslab

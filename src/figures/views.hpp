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
  Training,               // in the Model tab: positions across training (a Hub model's revisions)
  Extrapolation,          // in the Train tab
};

// What a view is drawn from.
enum class ViewNeeds {
  Embeddings,     // the embeddings table and the state's pipeline (the explorer's views)
  Model,          // a model folder (--model DIR): its forward pass, its config, or its own sentences
  TrainedModels,  // trained model folders (--models DIR,DIR,...)
  Revisions,      // a Hub model's revisions (--model ORG/NAME --revisions R,R,...)
  Papers,         // the papers' checks (poslab papers check; their figures: poslab export paper --id ID)
};

struct TransformerConfig;
struct ModelRun;
class Checkpoint;

// A model view's figure and CSV at their export sizes.
struct ModelViewOutput {
  plot::Figure figure;
  std::string csv;
};

// What a model view is drawn from: the state (its interventions, layer, head), the model's config,
// and the one forward pass of the state (null for a view that runs none: the config's M-RoPE
// layout, the probe that runs the model over sentences of its own, which it reads from `model`).
struct ModelViewInputs {
  const State& state;
  const TransformerConfig& config;
  const ModelRun* run = nullptr;
  const Checkpoint* model = nullptr;
  // Whether the CSV is made too (an export that writes none skips it: the attention's CSV has a
  // row per head and cell, gigabytes for a 32-head model at two thousand tokens).
  bool csv = true;
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
  // One of the files of Export all views (`poslab export all`); a model's view only while a model
  // is shown (the GUI's Export all views with a model open).
  bool in_all_views = false;
  // The figure at its export size, its CSV, and the figure filling `room` (points) as its tab
  // draws it; null where the view is not drawn from the embeddings.
  Result<plot::Figure> (*figure)(const ViewInputs&) = nullptr;
  Result<std::string> (*csv)(const ViewInputs&) = nullptr;
  Result<plot::Figure> (*figure_to_fill)(const ViewInputs&, plot::Point room, Overflow overflow) = nullptr;
  // A model's view (and the attention view's model layer): its figure and CSV; `forward_pass`:
  // drawn from the state's one forward pass (ModelViewInputs::run), else from the config or the
  // model itself.
  Result<ModelViewOutput> (*model_output)(const ModelViewInputs&) = nullptr;
  bool forward_pass = false;
  // Whether its figure and CSV read the run's scores, not only its weights: a run for a view that
  // does not keeps weights alone, half the memory (an interactive page shows both, always).
  bool reads_scores = true;
  // The parameters an animation of the view sweeps, its natural one first; empty for a view with none.
  std::vector<ViewSweep> sweeps = {};

  bool is_tab() const { return home == id; }
};

// Every view, in the order of the GUI's tabs, then the views inside the Model and Train tabs.
const std::vector<ViewInfo>& view_registry();
const ViewInfo& view_info(ViewId view);
// The view of a VIEW name; nullopt for any other name.
std::optional<ViewId> view_named(std::string_view name);
// The names of the views `filter` accepts, joined by ", ".
std::string view_names_where(bool (*filter)(const ViewInfo&));
// Whether `poslab export NAME` draws the view (every view but the tabs that hold others).
bool view_exports(const ViewInfo& view);

// Why `view` cannot be drawn from the embeddings alone (it needs a model folder or trained models).
std::string needs_message(const ViewInfo& view);

}  // namespace poslab

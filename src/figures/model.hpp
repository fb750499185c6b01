#pragma once
// A real model folder's views: every head of a layer as small multiples with where each looks
// (sink, distance, previous token), the RoPE frequency usage per head and pair, the predictions
// and the loss — each beside the unchanged model when the positions were changed — and the GUI
// tab that runs the model off the UI thread.
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "core/model/model_run.hpp"
#include "core/model/model_worker.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "plot/heatmap.hpp"
#include "figures/views.hpp"

namespace poslab {

// Export sizes (logical pixels), fixed so that exports are reproducible.
inline constexpr float kHeadThumbSide = 120.0f;

// Where one head's thumbnail is in the heads figure, and whose head it is (an encoder–decoder has
// a grid per stack: its encoder's, its decoder's, its cross-attention).
struct HeadThumb {
  plot::Box box;
  int head = 0;
  ModelStack stack = ModelStack::Encoder;
  bool changed = false;  // of the changed model's grid
};

// The small multiples of `layer`: one thumbnail per head, in rows of up to eight, each with its
// sink weight, mean attended distance and previous-token score; the changed model's grid below
// the unchanged one's when the run has one; an encoder–decoder's encoder, decoder and
// cross-attention one below the other. Returns the figure and where each head's thumbnail is.
struct HeadsFigure {
  plot::Figure figure;
  std::vector<HeadThumb> thumbs;  // every grid's, in drawing order
};
HeadsFigure heads_figure(const ModelRun& run, const TransformerConfig& config, float thumb_side);

// head,sink,mean_distance,previous_token,induction for the shown run's kept layer of the shown
// stack (cross-attention: the sink only, the other fields empty).
std::string heads_csv(const ModelRun& run);

// heads × pairs heatmap of mean ‖q_i‖·‖k_i‖ (Barbero et al. 2024), and its CSV head,pair,usage.
plot::HeatmapFigure frequency_usage_figure(const ModelRun& run, const TransformerConfig& config, float side);
std::string frequency_usage_csv(const ModelRun& run);
// Every layer's heads: the mean weight on the first token (StreamingLLM's attention sinks); the
// run needs all_layer_summaries. CSV `layer,head,sink`.
plot::HeatmapFigure sinks_figure(const ModelRun& run, const TransformerConfig& config, float side);
std::string sinks_csv(const ModelRun& run);
// Each layer's largest residual-stream values (Sun et al. 2024's massive activations): the top
// kActivationsPerLayer |x| after every layer, where they sit, and the median |x|; the run needs
// top_activations. CSV `layer,token,position,dim,value`, largest first within a layer.
inline constexpr int kActivationsPerLayer = 5;
plot::Figure activations_figure(const ModelRun& run, const TransformerConfig& config);
std::string activations_csv(const ModelRun& run);

// The attention view's figure for the run's layer; with a change, the unchanged model's figure
// on the left and the changed one's on the right, each title giving its loss.
plot::Figure model_attention_figure(const State& state, const ModelRun& run, const TransformerConfig& config, float side);

// Whether `view` in `state` is drawn from a model folder's own forward pass: heads,
// frequency-usage, the Model tab, or attention with a --layer.
bool view_needs_model(ViewId view, const State& state);

// The checks of a model view before the model runs: the layer and head in range, RoPE for
// frequency-usage. `state`'s layer becomes 0 when none was chosen.
Status check_model_view(ViewId view, State& state, const TransformerConfig& config);

// What a model's own settings ask for, against the model: an option that would change nothing
// on it is an error naming what does apply (RoPE's options without RoPE, a shift of positions
// that are only relative, a window without local layers, LongRoPE's factors without LongRoPE,
// another kind of --encoding or --bias), and --stack or --target on a model with one stack.
// The command line refuses such a state; the window says it (the Model tab and stderr).
Status check_model_stack(const State& state, const TransformerConfig& config);
Status check_interventions_apply(const State& state, const TransformerConfig& config);
std::string applicable_options(const TransformerConfig& config);  // "--no-positions, --base, … and --permute"
Status check_model_settings(const State& state, const TransformerConfig& config);  // both checks

// A model view's figure and CSV at their export sizes (heads, frequency-usage, attention of the
// run's layer, …), as its row of the view registry draws it from the run: the one place that
// chooses among them, for `poslab export`, the GUI's export and animations.
// Pair-scores says when the run cannot give it (a --query past the sentence's end).
Result<ModelViewOutput> model_view_output(ViewId view, const State& state, const ModelRun& run, const TransformerConfig& config,
                                          bool csv = true);
// The mrope view, drawn from the config alone (no forward pass): the pairs' axes and the ids of
// state.view.mrope_layout.
Result<ModelViewOutput> mrope_view_output(const State& state, const TransformerConfig& config);

// The score-by-pair lens (export pair-scores): head `state.view.head` of the run's layer, its
// scores split by rotary pair, as a heatmap of pairs against distance (the mean over queries, or
// `state.view.query`'s row) and a CSV query,key,pair,theta,contribution (pair −1: the dimensions
// RoPE does not rotate), the contributions of a cell summing to its score in export attention's CSV.
Result<ModelViewOutput> pair_scores_output(const State& state, const ModelRun& run, const TransformerConfig& config);

// The position-probe lens (export position-probe): a ridge probe of each token's position from
// every layer's residual stream, over the sentences of state.view.probe_text (else PosLab's own),
// the unchanged model's R² and, when the state changes the positions, the changed one's beside
// it; CSV layer,r2,mean_abs_error of the changed model (else the unchanged one).
Result<ModelViewOutput> position_probe_output(const State& state, const Checkpoint& model, const std::atomic<bool>* cancel = nullptr,
                                              const std::function<void(double)>& progress = {});

// A token as a table cell: control characters (a newline token, say) written as \n or \xNN.
std::string visible_token(const std::string& token);
// "loss x nats, perplexity y", or why there is none.
std::string loss_text(const ForwardResult& forward);

// {"ids": [...], "tokens": [...], "loss": x, "perplexity": x, "top": [[{"id", "token", "p"}, ...], ...]}
std::string predictions_json(const ForwardResult& forward);

}  // namespace poslab

#pragma once
// A real model folder's views: every head of a layer as small multiples with where each looks
// (sink, distance, previous token), the RoPE frequency usage per head and pair, the predictions
// and the loss — each beside the unchanged model when the positions were changed — and the GUI
// tab that runs the model off the UI thread.
#include <memory>
#include <string>

#include "core/model/model_run.hpp"
#include "core/model/model_worker.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "plot/heatmap.hpp"

namespace poslab {

// Export sizes (logical pixels), fixed so that exports are reproducible.
inline constexpr float kHeadThumbSide = 120.0f;

// The small multiples of `layer`: one thumbnail per head, in rows of up to eight, each with its
// sink weight, mean attended distance and previous-token score; the changed model's grid below
// the unchanged one's when the run has one. Returns the figure and where each head's thumbnail is.
struct HeadsFigure {
  plot::Figure figure;
  std::vector<plot::Box> thumbs;  // of the first grid, by head
};
HeadsFigure heads_figure(const ModelRun& run, const TransformerConfig& config, float thumb_side);

// head,sink,mean_distance,previous_token for the shown run's kept layer.
std::string heads_csv(const ModelRun& run);

// heads × pairs heatmap of mean ‖q_i‖·‖k_i‖ (Barbero et al. 2024), and its CSV head,pair,usage.
plot::HeatmapFigure frequency_usage_figure(const ModelRun& run, const TransformerConfig& config, float side);
std::string frequency_usage_csv(const ModelRun& run);

// The attention view's figure for the run's layer; with a change, the unchanged model's figure
// on the left and the changed one's on the right, each title giving its loss.
plot::Figure model_attention_figure(const State& state, const ModelRun& run, const TransformerConfig& config, float side);

// {"ids": [...], "tokens": [...], "loss": x, "perplexity": x, "top": [[{"id", "token", "p"}, ...], ...]}
std::string predictions_json(const ForwardResult& forward);

// The GUI tab.
class ModelView {
 public:
  // Opens the model when the state's embeddings path is a model folder (and it changed), asks
  // the worker for the state's run, and draws. `show_attention` is set when a head was clicked.
  void draw(State& state, const plot::FontSet& fonts, bool& show_attention);
  // Keeps the worker asked for what the state wants, whichever tab is open.
  void update(const State& state);
  const ModelRun* run() const { return run_.get(); }
  const Checkpoint* model() const { return model_.get(); }
  const std::shared_ptr<const Checkpoint>& shared_model() const { return model_; }
  std::uint64_t version() const { return worker_.version(); }
  bool running() const { return worker_.running(); }
  void wait() { worker_.wait(); }
  const std::string& error() const { return open_error_; }

 private:
  void open_if_changed(const State& state);
  void draw_predictions(const ModelRun& run);

  std::shared_ptr<const Checkpoint> model_;
  std::string model_path_, open_error_;
  ModelWorker worker_;
  std::shared_ptr<const ModelRun> run_;
  std::uint64_t built_version_ = ~0ull;
  HeadsFigure heads_;
  plot::HeatmapFigure usage_;
  plot::TextureCache textures_;
};

}  // namespace poslab

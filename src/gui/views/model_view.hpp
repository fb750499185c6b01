#pragma once
// The GUI part of the model view (its figure: figures/model.hpp).
#include <cstdint>
#include <tuple>

#include "figures/model.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"
#include "gui/views/hub_box.hpp"
#include "gui/views/training_panel.hpp"

namespace poslab {


// The GUI tab.
class ModelView {
 public:
  // Opens the model when the explorer's embeddings path is a model folder (and it changed), asks
  // the worker for the run its settings want, and draws. `show_attention` is set when a head was
  // clicked; `open` to a folder the reader asked to open (typed, shipped or recent: `recent`). Of
  // the explorer's state the tab changes only what the two share: the layer, the head and the
  // view's choices; never its encoding, bias or other settings.
  void draw(State& explorer, const plot::FontSet& fonts, const std::vector<std::string>& recent, bool& show_attention,
            std::string& open);
  // Keeps the worker asked for what the model's settings want, whichever tab is open.
  void update(const State& explorer);
  // The first model opened takes its changes from the explorer's state as it is (the command
  // line's `--model DIR --base 5000 --encoding none`, whose options are the model's changes, as
  // `poslab export` reads them); without this call, and for every model opened later, the model
  // starts as its folder has it.
  void first_model_takes_the_state() { first_takes_state_ = true; }
  // The settings the model runs with: the explorer's sentence, layer, head and view, and the
  // model's own positions, their changes and its shuffle.
  const State& settings() const { return own_; }
  // `settings` as the model's from now on (the play bar moved its layer or base): what it shares
  // with the explorer goes back there too.
  void change_settings(const State& settings, State& explorer) {
    own_ = settings;
    share_back(explorer);
  }
  const ModelRun* run() const { return run_.get(); }
  TrainingPanel& training() { return training_; }
  const Checkpoint* model() const { return model_.get(); }
  const std::string& folder() const { return model_folder_; }  // the open model's folder
  const std::shared_ptr<const Checkpoint>& shared_model() const { return model_; }
  std::uint64_t version() const { return worker_.version(); }
  bool running() const { return worker_.running() || hub_box_.busy() || training_.busy(); }
  void wait() { worker_.wait(); }
  const std::string& error() const { return open_error_; }
  // Why the folder the tab asked to open did not load ("" once one did): said in the tab, where
  // the reader looks, and not only on the status line.
  void say_load_error(std::string why) { load_error_ = std::move(why); }
  // Whether the head last clicked was the unchanged model's (the Attention tab then shows that
  // model's layer; otherwise the changed model's, when there is one).
  bool shows_unchanged() const { return shows_unchanged_; }

 private:
  void open_if_changed(const State& explorer);
  // The model run's settings, whose positions and their changes the tab's controls change, never
  // the explorer's. What the two share is copied in from the explorer before each use
  // (share_from) and back after the tab's controls (share_back): the sentence, T5's stack and
  // target, the embeddings, the layer, the head and the view's choices.
  State own_;
  bool first_open_ = true, first_takes_state_ = false;
  void share_from(const State& explorer);
  void share_back(State& explorer) const;
  void request_run();  // the worker asked for own_'s run
  void draw_tab(State& state, const plot::FontSet& fonts, const std::vector<std::string>& recent, bool& show_attention,
                std::string& open);
  void draw_predictions(const ModelRun& run);
  // A mixture of experts: which experts the router chose for each position in the layer shown.
  void draw_experts(const ModelRun& run, int layer);
  void draw_picker(const std::vector<std::string>& recent, std::string& open);
  char folder_input_[1024] = "";

  std::shared_ptr<const Checkpoint> model_;
  std::string model_path_, open_error_, load_error_;
  std::string model_folder_;  // model_'s folder (model_path_ may name one that failed to open)
  // What the state asks of this model that it cannot do (a window on a model without local
  // layers, --stack cross on BERT): the command line refuses it, the window says it (here and
  // once on stderr) and runs the model without it.
  std::string settings_error_, settings_error_said_;
  ModelWorker worker_;
  std::shared_ptr<const ModelRun> run_;
  std::uint64_t built_version_ = ~0ull;
  HeadsFigure heads_;
  plot::HeatmapFigure usage_;
  plot::TextureCache textures_;        // the heads grid's
  plot::TextureCache usage_textures_;  // the frequency usage's: a figure of its own, never the grid's
  plot::Figure sinks_, activations_;   // every layer's sinks and largest activations
  plot::TextureCache sinks_textures_, activations_textures_;
  // The shown head's scores by rotary pair, built when its header is open and the run or the head changed.
  plot::Figure pairs_;
  std::string pairs_error_;
  std::tuple<std::uint64_t, int, int> pairs_built_{~0ull, -1, -1};  // the run's version, the head, the query
  plot::TextureCache pairs_textures_;
  // M-RoPE's layout (Qwen-VL models), built from the config when the model or the layout changes.
  plot::Figure mrope_;
  std::string mrope_key_;
  plot::TextureCache mrope_textures_;
  void draw_mrope(State& state, const TransformerConfig& c, const plot::FontSet& fonts);
  bool shows_unchanged_ = false;
  HubBox hub_box_;          // a model named on the Hub (gui/views/hub_box.hpp)
  TrainingPanel training_;  // its revisions across training (gui/views/training_panel.hpp)
  void draw_heads(State& state, const plot::FontSet& fonts, bool& show_attention);
  void draw_interventions(State& state, const TransformerConfig& c);
  void draw_stack(State& state, const TransformerConfig& c);
  void draw_fill_mask(const ModelRun& run);
  void draw_lenses(const State& state, const TransformerConfig& c, const plot::FontSet& fonts);
  char target_input_[1024] = "";
};

}  // namespace poslab

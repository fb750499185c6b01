#pragma once
// The Train tab: tiny transformers that differ only in their positional encoding, trained on a
// worker thread (live loss curves, Stop), then the length-extrapolation plot (train short, test
// long: the ALiBi paper's figure), and any trained model opened in the Model and Attention tabs.
// The figures are also `poslab export extrapolation`'s.
#include <filesystem>
#include <string>
#include <vector>

#include "core/state.hpp"
#include "core/train/train_worker.hpp"
#include "plot/draw.hpp"
#include "plot/lines.hpp"
#include "ui/figure_fit.hpp"

namespace poslab {

// Export size of one panel's plotting area (logical pixels).
inline constexpr plot::Point kExtrapolationPanel{420.0f, 240.0f};

// Accuracy (top) and loss (bottom) against evaluation length on log axes, the training lengths
// marked: the encodings as trained on the left; on the right, when there are RoPE models, RoPE
// with each context scaling applied at inference.
plot::Figure extrapolation_figure(const std::vector<ExtrapolationCurve>& curves, plot::Point panel);

// Training loss against step, one line per run (log scale).
plot::LinePlotFigure training_loss_figure(const std::vector<TrainProgress::Run>& runs, plot::Point area);

// The folder the shipped pre-trained models live in (assets/trained), and its models.
std::filesystem::path shipped_models_folder();
std::vector<std::filesystem::path> shipped_models();

// Where the Train tab saves: $XDG_DATA_HOME/poslab/trained (absolute only), else
// ~/.local/share/poslab/trained.
std::filesystem::path default_train_folder();

// The state that shows a trained model's heads: `--model DIR` applied, its last layer, and as the
// sentence a seeded sequence of the model's task at its training length ("hbk…|hbk…" for copy).
Result<State> state_for_trained_model(State state, const std::filesystem::path& dir);
// That sequence alone.
std::string task_example(const TrainedModel& model);

class TrainView {
 public:
  TrainView();
  // `open_model` is set to a folder when the reader asks to see a model's heads.
  void draw(const plot::FontSet& fonts, std::filesystem::path& open_model);
  TrainWorker& worker() { return worker_; }
  // The extrapolation figure and its CSV as they stand (the Export button's).
  plot::Figure export_figure() const;
  std::string export_csv() const;

 private:
  void draw_settings();
  void draw_models(std::filesystem::path& open_model);
  void start_training();
  void evaluate_models(std::vector<std::filesystem::path> folders);

  // The settings the controls edit.
  int task_ = 0;                      // 0 copy, 1 recall
  bool encodings_[6] = {true, true, true, true, true, true};  // none, sinusoidal, learned, rope, alibi, t5
  int layers_ = 2, width_ = 64, heads_ = 4, train_length_ = 32, steps_ = 1500, batch_ = 32, seed_ = 1, symbols_ = 16;
  float lr_ = 3e-3f;
  char folder_[512] = {};
  int eval_sequences_ = 100;

  TrainWorker worker_;
  TrainProgress shown_;
  std::uint64_t shown_version_ = 0;  // the worker's version before any job: the shipped models shown
  std::vector<std::filesystem::path> models_;  // trained here or shipped, to open
  int chosen_model_ = 0;
  std::string message_;
  plot::LinePlotFigure loss_;
  plot::Figure extrapolation_;
  plot::TextureCache loss_textures_, extrapolation_textures_;
  bool loss_changed_ = true, curves_changed_ = true;
  enum class Bring { Nothing, Loss, Curves } bring_ = Bring::Nothing;  // the figure tab to bring forward once
  Refit loss_refit_, extrapolation_refit_;
};

}  // namespace poslab

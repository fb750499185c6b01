#pragma once
// The GUI part of the train view (its figure: figures/train.hpp).
#include <cstdint>
#include <optional>

#include "figures/train.hpp"
#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {


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
  void draw_sizes();
  void draw_models(std::filesystem::path& open_model);
  void start_training();
  // The folder a job with the settings now would save into (FOLDER/run-seedN).
  std::filesystem::path job_folder() const;
  // What Train would replace there: "copy-rope (finished, 1500 steps)", each model the folder holds
  // with what this session knows of its run; "" when the folder holds none.
  std::string replaced_models(const std::filesystem::path& folder) const;
  // The Train button, or when the folder holds a run, what it would replace and a second click.
  void draw_train_button();
  void evaluate_models(std::vector<std::filesystem::path> folders);

  // The settings the controls edit.
  int task_ = 0;                      // an index of kTaskKinds
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
  std::string confirming_;  // the folder whose replacement Train asks to confirm ("" : none asked)
  // replaced_models of a folder, kept while the folder and the runs shown stay the same: the tab
  // does not list the folder every frame.
  struct Replaced {
    std::string folder;
    std::uint64_t version = 0;
    std::string text;
  };
  std::optional<Replaced> replaced_;
  plot::LinePlotFigure loss_;
  plot::Figure extrapolation_;
  plot::TextureCache loss_textures_, extrapolation_textures_;
  bool loss_changed_ = true, curves_changed_ = true;
  enum class Bring { Nothing, Loss, Curves } bring_ = Bring::Nothing;  // the figure tab to bring forward once
  Refit loss_refit_, extrapolation_refit_;
};

}  // namespace poslab

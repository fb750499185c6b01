#pragma once
// The Papers tab: every check of docs/PAPERS.md (core/papers) with its paper, where in it, the
// published value, PosLab's, the difference and a verdict; the chosen check's figure with the
// published curve or points beside PosLab's; a button that runs them again. The checks run off
// the UI thread (the base-bound search takes seconds), as `poslab papers check` runs them.
#include <string>
#include <vector>

#include "base/newest_worker.hpp"
#include "core/papers/papers.hpp"
#include "gui/show_figure.hpp"

namespace poslab {

class PapersView {
 public:
  // `model`: the Model tab's open folder (empty: none), which the model checks read.
  void draw(const plot::FontSet& fonts, const std::string& model);
  bool busy() const { return worker_.busy(); }

 private:
  // What one run of every check gives: each check's result and its figure's panels, in
  // paper_checks() order; a check that could not be made (no model open, a model of the wrong
  // kind) is listed with why.
  struct Run {
    std::vector<const PaperCheck*> checks;
    std::vector<PaperCheckResult> results;
    std::vector<std::vector<PaperPanel>> panels;
    std::string waiting;                // the model checks not run for want of a model: "sinks, …"
    std::vector<std::string> not_made;  // "frequency-usage: needs a RoPE model"
    std::string model;                  // the folder the model checks read
  };
  void start(const std::string& model);
  void draw_table();

  NewestWorker<Run> worker_{Superseded::Cancel};
  std::optional<Run> run_;
  bool started_ = false;
  std::string asked_model_;  // the model folder the last run was asked with
  int chosen_ = 0;
  int figure_of_ = -1;  // whose figure figure_ holds
  plot::Figure figure_;
  plot::TextureCache textures_;
};

}  // namespace poslab

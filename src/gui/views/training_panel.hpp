#pragma once
// The Model tab's "Positions across training": a repository's revisions (step1000, step2000, …)
// run one after another on a worker thread, per head of one layer the previous-token, induction,
// sink and distance scores and the loss against the step (figures/training.hpp). The download's
// size is said first and nothing is fetched until the user agrees.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "figures/training_run.hpp"
#include "base/newest_worker.hpp"
#include "gui/show_figure.hpp"
#include "gui/views/hub_box.hpp"

namespace poslab {

class TrainingPanel {
 public:
  // `repo`: the model box's repository, the default until one is typed here.
  void draw(const std::string& repo, const std::string& sentence, const plot::FontSet& fonts);
  bool busy() const { return planner_.running() || runner_.running(); }
  // Whether its Export button was pressed since the last call; then the shown figure and its CSV,
  // as `poslab export training` writes them.
  bool take_export_request() { return std::exchange(export_requested_, false); }
  const plot::Figure& export_figure() const { return export_figure_; }  // as `poslab export training` draws it
  std::string export_csv() const;

 private:
  enum class Stage { Idle, Sizing, Consent, Running, Shown };
  void start_sizing(const std::string& sentence);
  void start_running();
  void draw_consent();
  void collect();
  char repo_[256] = "";
  char revisions_[1024] = "";
  int layer_ = 0;
  Stage stage_ = Stage::Idle;
  hub::TrainingRequest request_;
  NewestWorker<Result<std::vector<hub::FetchPlan>>> planner_;
  NewestWorker<Result<std::vector<hub::RevisionStats>>> runner_;
  std::vector<hub::FetchPlan> plans_;
  std::vector<hub::RevisionStats> rows_;
  std::shared_ptr<DownloadCounters> counters_ = std::make_shared<DownloadCounters>();
  std::shared_ptr<std::atomic<int>> revisions_done_ = std::make_shared<std::atomic<int>>(0);
  std::string error_;
  bool export_requested_ = false;
  plot::Figure figure_, export_figure_;  // laid out for the window's panel, and for the export
  float figure_width_ = -1.0f;  // the room figure_ was laid out for (points); −1: not yet
  plot::TextureCache textures_;
};

}  // namespace poslab

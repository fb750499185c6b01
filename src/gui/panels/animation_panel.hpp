#pragma once
// The GUI's animations: a play bar over the shown view's natural parameter (play, pause, scrub,
// speed, loop; the value drawn on the view), seed 000's animations as one click each, and the
// Export animation dialog. An export draws one frame per window frame on the UI thread (the
// figures need its OpenGL context) and encodes on a worker thread, with a progress bar and
// Cancel, so the window keeps drawing.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <vector>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/animate/sweep.hpp"
#include "core/workspace.hpp"
#include "plot/figure_renderer.hpp"
#include "plot/video.hpp"
#include "figures/animation.hpp"
#include "figures/export.hpp"
#include "core/tour/tour_text.hpp"

namespace poslab {

// One export running: frames rendered here, encoded on a worker.
class AnimationExport {
 public:
  AnimationExport(AnimationSource source, std::unique_ptr<Workspace> workspace, State start, Sweep sweep, float scale,
                  std::unique_ptr<plot::FrameSink> sink);
  ~AnimationExport();  // cancels if still running
  AnimationExport(const AnimationExport&) = delete;
  AnimationExport& operator=(const AnimationExport&) = delete;

  // Renders the next frame if the encoder is not too far behind; call once per window frame.
  void pump();
  void cancel();
  bool done() const { return done_; }
  double progress() const;  // 0 … 1: the figures measured (first tenth), then the frames encoded
  // Once done: empty on success, else why it failed (or "cancelled").
  std::string error() const;

 private:
  void encode_loop();

  AnimationSource source_;
  std::unique_ptr<Workspace> workspace_;
  State start_;
  Sweep sweep_;
  float scale_;
  std::unique_ptr<plot::FrameSink> sink_;
  std::unique_ptr<plot::FigureRenderer> renderer_;  // made on the UI thread, in its OpenGL context
  int measured_ = 0;  // frames whose size is known: first every figure is measured for the canvas
  int canvas_width_ = 0, canvas_height_ = 0;
  int rendered_ = 0;
  std::atomic<int> encoded_{0};
  std::atomic<bool> cancel_{false}, done_{false};
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<plot::RgbaImage> queue_;
  bool closed_ = false;  // no more frames will come
  std::string error_;
  std::thread worker_;
  // A model folder's frames each need a forward pass: their figures are made on a thread of their
  // own, in order, so that the window keeps drawing; pump() measures and renders them as they come.
  void figure_loop();
  // Frame k's figure: made here (a view of the embeddings), or taken from the figure thread
  // (a model's view; nullopt while it is not ready yet). An error ends the export.
  std::optional<Result<plot::Figure>> frame_figure(int k, bool take);
  bool from_model_ = false;
  std::vector<std::optional<Result<plot::Figure>>> figures_;  // guarded by mutex_
  std::thread figure_worker_;
};

class AnimationPanel {
 public:
  // The play bar for `view`, drawn where the cursor is; while playing or scrubbing it sets the
  // parameter in `state`. `gpu` and `renderer` are the window's, for exports.
  void draw_bar(ViewId view, State& state, const Workspace& workspace, AttentionBackend* gpu,
                const std::string& renderer);
  // On tour steps 3, 5 and 6: a button that plays the article's animation of the step in the
  // trajectory view. True when pressed (the caller brings that tab to the front).
  bool draw_tour_button(int step, State& state, Language language);
  // A line for the status bar while an export runs or when one ended ("" otherwise).
  const std::string& message() const { return message_; }
  // The model folder the Model tab has open (null: none), for exporting its views' animations.
  void set_model(std::shared_ptr<const Checkpoint> model) { model_ = std::move(model); }

 private:
  void start_sweep(ViewId view, const ViewSweep& natural, State& state);
  // The sweep lets go of the state (its view or parameter left): what it changed is given back.
  void stop(State& state);
  // The parameters `view`'s bar offers (a layer only for a model folder), the sweep stopped
  // first when the view is another than its own.
  std::vector<ViewSweep> bar_sweeps(ViewId view, State& state);
  // The heads `view` has now: the open model's for a model's view, else the state's.
  int head_count(ViewId view, const State& state) const;
  // The play bar's frame slider; its text names the value in use, the state's own while no frame is shown.
  void draw_scrub(const ViewSweep& natural, State& state, float width);
  void draw_value_on_view(const ViewSweep& natural);
  void set_frame(int k, State& state);
  void draw_export_progress();
  void draw_export_dialog(const State& state, const Workspace& workspace, AttentionBackend* gpu,
                          const std::string& renderer);

  ViewId view_ = ViewId::Attention;
  std::shared_ptr<const Checkpoint> model_;
  bool has_view_ = false;
  std::string layer_checked_path_ = "?";  // the embeddings path last checked for a model folder
  bool has_layers_ = false;
  int param_index_ = 0;
  std::optional<Sweep> sweep_;
  double from_ = 0.0, to_ = 1.0;
  int frames_ = 60;
  int frame_ = 0;        // the frame shown
  bool active_ = false;  // the state holds a frame's value
  // The state before the sweep set its first frame (before the tour step's preset, for the
  // article's animation), and as its last frame left it: stop() gives the first back.
  std::optional<State> before_;
  State set_;
  bool waiting_for_view_ = false;  // the article's animation was asked for; its tab is not in front yet
  bool playing_ = false;
  bool scrubbing_ = false;  // the frame slider is held (the value is drawn on the view while playing or scrubbing)
  int range_heads_ = 0;     // the head count the head range was made for
  bool loop_ = true;
  float fps_ = 12.0f;
  double clock_ = 0.0;                         // seconds since the shown frame came up
  const ArticleAnimation* article_ = nullptr;  // the article's animation being played, if any

  // The export dialog.
  bool open_dialog_ = false;
  int format_ = 0;  // 0 MP4, 1 GIF, 2 PNG frames
  int scale_ = 1;
  float export_fps_ = 24.0f;
  char path_[512] = "";
  std::unique_ptr<AnimationExport> export_;
  std::string export_path_;
  std::string message_;
  bool message_is_error_ = false;
};

}  // namespace poslab

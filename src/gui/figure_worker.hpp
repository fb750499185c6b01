#pragma once
// Builds a view's figure on a worker thread, so that a slow one (a long sentence's bias matrices,
// the trial layouts that fit a figure to its panel) never holds a frame up: the view keeps
// showing the figure it has until the new one is ready.
//
// Requests coalesce: one made while another builds replaces any still waiting, so dragging a
// slider builds the newest value next rather than every value passed on the way.
#include <exception>
#include <functional>
#include <optional>
#include <string>

#include "base/newest_worker.hpp"
#include "base/result.hpp"

namespace poslab {

template <class Built>
class FigureWorker {
 public:
  // Runs on the worker thread: it may read only what it owns (copies, shared pointers). It may
  // return the figure or why there is none.
  using Build = std::function<Result<Built>()>;

  void request(Build build) {
    worker_.request([build = std::move(build)](const RunSignals&) -> Result<Built> {
      try {
        return build();
      } catch (const std::exception& e) {  // out of memory, say: the view says so and keeps going
        return Error{std::string("could not draw the figure: ") + e.what()};
      }
    });
  }

  // The newest figure finished since the last call (or why its build failed), once.
  std::optional<Result<Built>> take() { return worker_.take(); }

  // Whether the newest request is not yet taken (waiting, building, or built).
  bool busy() const { return worker_.busy(); }

  // For the view on the UI thread: installs the newest finished figure as current(), or its
  // failure as failure() (the previous figure stays). True when either changed.
  bool refresh() {
    std::optional<Result<Built>> taken = take();
    if (!taken) return false;
    if (*taken) {
      current_ = std::move(**taken);
      failure_.clear();
    } else {
      failure_ = taken->error();
    }
    return true;
  }
  const Built& current() const { return current_; }
  const std::string& failure() const { return failure_; }

 private:
  Built current_{};      // UI thread only
  std::string failure_;  // UI thread only
  // A build cannot be cut short: one in flight when a newer request comes finishes and is shown
  // (a step towards the newest), and destroying the worker waits for it. Last: joined first.
  NewestWorker<Result<Built>> worker_{Superseded::Finish};
};

// Over the top of the figure about to be drawn, without taking room from it: "drawing …" while
// the first figure builds, or why the last build failed.
void draw_figure_note(bool busy, bool have_figure, const std::string& failure);

}  // namespace poslab

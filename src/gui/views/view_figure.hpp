#pragma once
// What every figure tab does with its figure, in one place: it is built off the UI thread for the
// panel's room, built again when what it shows changes or the room does, and meanwhile the figure
// it has stays on screen with a note over it ("drawing the figure …", or why a build failed). A
// view says only what differs: its Key (the settings its figure depends on) and its build.
#include <optional>
#include <type_traits>

#include "gui/figure_worker.hpp"
#include "gui/show_figure.hpp"

namespace poslab {

// Built: plot::Figure, or a struct whose `figure` member is the plot::Figure to draw (and that
// carries what hovering needs). Key: comparable with ==.
template <class Built, class Key>
class ViewFigure {
 public:
  using Build = typename FigureWorker<Built>::Build;

  // Whether to build again for `key` in `room`; asked once a frame (resizing the window waits
  // for the size to settle, see Refit).
  bool stale(const Key& key, plot::Point room) { return refit_.now(!built_for_ || !(*built_for_ == key), room); }
  void request(const Key& key, Build build) {
    worker_.request(std::move(build));
    built_for_ = key;
  }

  // Installs the newest finished figure (true when it or the failure changed).
  bool refresh() { return worker_.refresh(); }
  // Refreshes, then draws the note and the figure at the cursor.
  ShownFigure show(plot::Point room, const plot::FontSet& fonts, const char* id = nullptr,
                   Overflow overflow = Overflow::Shrink) {
    worker_.refresh();
    const plot::Figure& figure = figure_of(worker_.current());
    draw_figure_note(worker_.busy(), figure.width > 0, worker_.failure());
    return show_figure(figure, room, fonts, textures_, id, overflow);
  }

  const Built& current() const { return worker_.current(); }
  const std::string& failure() const { return worker_.failure(); }
  // A figure for the newest settings is still being built (or not yet shown).
  bool busy() const { return worker_.busy(); }

 private:
  // The figure itself, or the one a struct carries (a LinePlotFigure's, a view's own struct's).
  template <class Carrier>
  static const plot::Figure& figure_of(const Carrier& built) {
    if constexpr (std::is_same_v<Carrier, plot::Figure>) return built;
    else return figure_of(built.figure);
  }

  FigureWorker<Built> worker_;  // built off the UI thread
  plot::TextureCache textures_;
  std::optional<Key> built_for_;  // what the newest request shows
  Refit refit_;                   // when to lay the figure out again
};

}  // namespace poslab

#pragma once
// The GUI's exports of a view, off its thread: the figure and the data are made, and the SVG, CSV
// and PNG files written, on a worker thread. Only the PNG's drawing, which needs the window's
// OpenGL and ImGui contexts, runs on the UI thread, with fonts the worker baked. An export's files
// go through one OutputPlan, as `poslab export`'s do: every one checked before any work, written
// beside its target and moved into place together once the PNG is drawn, so that a failure leaves
// them all as they were. The renderer is kept while exports keep coming and let go when none
// waits, so that memory returns to where it was. Exports run in the order they were asked for;
// none is dropped.
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <string>
#include <thread>
#include <vector>

#include "core/attention/pipeline.hpp"
#include "core/formats/embeddings.hpp"
#include "core/state.hpp"
#include "plot/figure_renderer.hpp"
#include "figures/export.hpp"

namespace poslab {

class ExportQueue {
 public:
  // What a finished export says: its files ("path (details)") or why it failed; `folder` is the
  // folder of an export of every view (empty for one view's).
  using Report =
      std::function<void(const Status& status, const std::vector<std::string>& written, const std::string& folder)>;

  ExportQueue();
  ~ExportQueue();  // call finish() first: a PNG still to be drawn needs the window's context
  ExportQueue(const ExportQueue&) = delete;
  ExportQueue& operator=(const ExportQueue&) = delete;

  void start(ViewId view, State state, std::shared_ptr<const Results> results,
             std::shared_ptr<const EmbeddingTable> table, ExportRequest request);
  // A picture already drawn (the window itself, Ctrl+Shift+S): encoded and written on the worker.
  void save_png(plot::RgbaImage image, std::string path);
  // Every view into `dir`, as export_all_views writes them (all or nothing), with the views of the
  // model the window shows (export_all_begin).
  void start_all(State state, std::shared_ptr<const Results> results, std::shared_ptr<const EmbeddingTable> table,
                 std::filesystem::path dir, float scale, std::vector<ShownModelView> shown = {});
  // Once a frame, on the UI thread: draws the PNGs whose figures are ready and reports the
  // exports that finished.
  void pump(const Report& report);
  // Pumps until every export asked for is written (at exit, so that none is lost).
  void finish(const Report& report);
  bool busy() const;

 private:
  // An export whose PNGs are to be drawn; each is written by `write`, then `commit` (if any) ends
  // the export, or `abort` (if any) undoes it. Its failures are reported after `failed`.
  struct ToDraw {
    std::vector<PendingPng> pngs;
    std::vector<std::string> written;
    std::function<Status(const plot::RgbaImage&, const std::string&, std::vector<std::string>&)> write;
    std::function<Status(std::vector<std::string>&)> commit;
    std::function<void()> abort;
    std::string failed;  // "wrote none of …: "
    std::string folder;  // an export of every view: its folder
    std::shared_ptr<plot::BakedFonts> fonts;  // baked on the worker when no renderer has them yet
    std::vector<std::pair<plot::RgbaImage, std::string>> drawn;  // UI thread: one PNG a frame
  };
  struct Done {
    Status status;
    std::vector<std::string> written;
    std::string folder;
  };
  void post(std::function<void()> task);
  void loop();
  void complete(Status status, std::vector<std::string> written, std::string folder = {});
  // Draws the next PNG of the export being drawn; once all are, the worker writes them.
  void draw_next();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  std::deque<ToDraw> to_draw_;
  std::deque<Done> done_;
  int outstanding_ = 0;  // exports asked for and not yet reported
  bool stop_ = false;
  std::optional<ToDraw> drawing_;                    // UI thread only
  std::unique_ptr<plot::FigureRenderer> renderer_;  // UI thread only
  std::thread thread_;
};

}  // namespace poslab

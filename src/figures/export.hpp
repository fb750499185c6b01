#pragma once
// Writing a view to files: the single path used by the GUI's Export buttons and `poslab export`.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/attention/pipeline.hpp"
#include "base/output_plan.hpp"
#include "core/arguments.hpp"
#include "core/state.hpp"
#include "core/tour/tour_text.hpp"
#include "plot/figure.hpp"
#include "plot/render.hpp"
#include "figures/views.hpp"

namespace poslab {

// The eleven views, in the order of the GUI's tabs (the tour is not one of them: it is a walk
// through them), and their names joined by ", ".
const std::vector<ViewId>& all_views();
std::string view_names();

std::string_view to_string(ViewId view);

struct ExportRequest {
  std::string png;  // empty: no image
  std::string svg;  // empty: no vector image
  std::string csv;  // empty: no data
  std::string html;  // empty: no interactive page (export attention and export heads write one)
  float scale = 1.0f;
  int head_dim = 0;  // frequencies: the head width (0: the state's d_h)
  int tour_step = 0;  // tour: the step (0-based); the state must already be that step's
  Language language = Language::En;  // tour: the words' language
};

// --head-dim N: the frequencies view's head width, one flag for `poslab export frequencies` and
// poslab.figure("frequencies").
Flag head_dim_flag(int& into);

// The figure of a view as exported (the export sizes), or why there is none.
Result<plot::Figure> view_figure(ViewId view, const State& state, const Results& results,
                                 const EmbeddingTable& table, const ExportRequest& request = {});

// The request's files as outputs of `plan` (named --png, --svg and --csv in its messages).
void plan_request(const ExportRequest& request, OutputPlan& plan);

// Writes what the request asks for; needs a current OpenGL context for a PNG. All of the files or
// none: each is written beside its target and they are renamed into place together at the end.
// On success, `written` lists "path (details)" for each file.
Status export_view(ViewId view, const State& state, const Results& results, const EmbeddingTable& table,
                   const ExportRequest& request, std::vector<std::string>& written);
// The same into a plan the caller has prepared (plan_request, then prepare()) and commits.
Status export_view(ViewId view, const State& state, const Results& results, const EmbeddingTable& table,
                   const ExportRequest& request, OutputPlan& plan, std::vector<std::string>& written);

// The parts of export_view that need no OpenGL, for a thread without a context: the SVG and CSV
// written, and the figure returned for the PNG (an empty figure when none is asked for).
Result<plot::Figure> export_all_but_png(ViewId view, const State& state, const Results& results,
                                        const EmbeddingTable& table, const ExportRequest& request,
                                        std::vector<std::string>& written);
// Encodes a drawn figure as PNG and writes it atomically.
Status write_png_image(const plot::RgbaImage& image, const std::string& path, std::vector<std::string>& written);

// One view's export in two steps, for a caller that draws the PNG on a thread of its own (the
// GUI), all of the request's files or none, as `poslab export` writes them: export_begin checks
// every file the request names (the PNG too) and writes the SVG and CSV into `plan`'s temporary
// files, returning the figure to draw; write_png_into then puts the PNG into the plan, and the
// caller commits it. A plan dropped uncommitted leaves every file as it was.
Result<plot::Figure> export_begin(ViewId view, const State& state, const Results& results, const EmbeddingTable& table,
                                  const ExportRequest& request, OutputPlan& plan, std::vector<std::string>& written);
Status write_png_into(const plot::RgbaImage& image, const std::string& path, OutputPlan& plan,
                      std::vector<std::string>& written);
// What an export that failed wrote, before the reason: "wrote none of A, B and C: " ("did not
// write A: " for one file), so that the reader knows every file is as it was.
std::string nothing_written(const ExportRequest& request);

// Writes the figure as PNG and SVG and the CSV text where the request names files (either may
// be null: nothing of it is written), all of them or none.
Status write_export(const plot::Figure* figure, const std::string* csv, const ExportRequest& request,
                    std::vector<std::string>& written);
// The same into a prepared plan, which the caller commits.
Status write_export(const plot::Figure* figure, const std::string* csv, const ExportRequest& request,
                    OutputPlan& plan, std::vector<std::string>& written);

// A figure still to be drawn and written as PNG.
struct PendingPng {
  plot::Figure figure;
  std::string path;
  float scale = 1.0f;
};

// export_all_views in steps, so that a GUI can make the files on a worker thread and draw the
// PNGs on its own: begin makes the staging folder with every view's SVG and CSV and returns the
// figures of the PNGs (to be written to their paths); commit moves everything into place; abort
// (which begin and commit call themselves when they fail) leaves DIR as it was.
struct ExportAllPlan {
  std::filesystem::path dir, staging;
  bool existed = false;             // DIR was there before
  std::vector<std::string> names;   // the files in staging
  std::vector<PendingPng> pngs;
};
// A view drawn from the model a window shows (its figure and CSV made where the run lives).
struct ShownModelView {
  ViewId view;
  ModelViewOutput output;
};
// `shown`: the views of the model the window shows, each written instead of the embeddings' view
// of its name (the Attention tab showing a model's layer) or beside them (heads, frequency-usage).
Result<ExportAllPlan> export_all_begin(const State& state, const Results& results, const EmbeddingTable& table,
                                       const std::filesystem::path& dir, float scale,
                                       const std::vector<ShownModelView>& shown = {});
Status export_all_commit(const ExportAllPlan& plan, std::vector<std::string>& written);
void export_all_abort(const ExportAllPlan& plan);

// Writes DIR/VIEW.png (at `scale`), DIR/VIEW.svg and DIR/VIEW.csv for every view. The files are
// made in a staging folder inside DIR and moved into place only once all of them are written, so
// a failure leaves DIR as it was (and removes DIR again if this call created it).
Status export_all_views(const State& state, const Results& results, const EmbeddingTable& table,
                        const std::filesystem::path& dir, float scale, std::vector<std::string>& written);

}  // namespace poslab

#include "ui/export.hpp"

#include <unistd.h>

#include <cmath>
#include <sstream>

#include "core/atomic_stream.hpp"
#include "core/export_data.hpp"
#include "plot/render.hpp"
#include "plot/svg.hpp"
#include "ui/attention_view.hpp"
#include "ui/bias_view.hpp"
#include "ui/distance_view.hpp"
#include "ui/dog_view.hpp"
#include "ui/frequencies_view.hpp"
#include "ui/magnitude_view.hpp"
#include "ui/patterns_view.hpp"
#include "ui/rope2d_view.hpp"
#include "ui/rope_image_view.hpp"
#include "ui/shift_view.hpp"
#include "ui/tour_view.hpp"
#include "ui/trajectory_view.hpp"

namespace poslab {

const std::vector<ExportView>& all_views() {
  static const std::vector<ExportView> views{ExportView::Attention, ExportView::Dog,        ExportView::Patterns,
                                             ExportView::Trajectory, ExportView::Magnitude, ExportView::Shift,
                                             ExportView::Rope2d,    ExportView::RopeImage,  ExportView::Bias,
                                             ExportView::Frequencies, ExportView::Distance};
  return views;
}

std::string view_names() {
  std::string names;
  for (ExportView v : all_views()) names += (names.empty() ? "" : ", ") + std::string(to_string(v));
  return names;
}

std::optional<ExportView> export_view_named(std::string_view name) {
  for (ExportView v : all_views())
    if (to_string(v) == name) return v;
  if (name == "tour") return ExportView::Tour;
  if (name == "heads") return ExportView::Heads;
  if (name == "frequency-usage") return ExportView::FrequencyUsage;
  if (name == "extrapolation") return ExportView::Extrapolation;  // the GUI's --view; export has its own command
  return std::nullopt;
}

std::string_view to_string(ExportView view) {
  switch (view) {
    case ExportView::Attention: return "attention";
    case ExportView::Frequencies: return "frequencies";
    case ExportView::Bias: return "bias";
    case ExportView::Magnitude: return "magnitude";
    case ExportView::Patterns: return "patterns";
    case ExportView::Shift: return "shift";
    case ExportView::Dog: return "dog";
    case ExportView::Rope2d: return "rope2d";
    case ExportView::RopeImage: return "rope-image";
    case ExportView::Trajectory: return "trajectory";
    case ExportView::Tour: return "tour";
    case ExportView::Heads: return "heads";
    case ExportView::FrequencyUsage: return "frequency-usage";
    case ExportView::Distance: return "distance";
    case ExportView::Extrapolation: return "extrapolation";
  }
  return "?";
}

bool view_has_plot(ExportView) { return true; }

namespace {

int rotary_for(const State& state, const Results& results, const ExportRequest& request) {
  return request.head_dim > 0 ? rotary_width(request.head_dim)
                              : frequencies_rotary_dim(state.model, results.problem.head_dim());
}

}  // namespace

Result<plot::Figure> view_figure(ExportView view, const State& state, const Results& results,
                                 const EmbeddingTable& table, const ExportRequest& request) {
  if (view == ExportView::Heads || view == ExportView::FrequencyUsage)
    return Error{"the " + std::string(to_string(view)) + " view needs a model folder (--model DIR)"};
  if (view == ExportView::Extrapolation) return Error{"the extrapolation view needs trained models (--models DIR,DIR,...)"};
  if (view == ExportView::Tour) return tour_figure(request.tour_step, request.language, state, results, table);
  if (view == ExportView::Dog) return dog_figure(state, table, 640.0f);
  if (view == ExportView::Rope2d) return rope2d_figure(state);
  if (view == ExportView::RopeImage) return rope_image_figure(state, 420.0f);
  if (view == ExportView::Trajectory) return trajectory_figure(state, results, 300.0f);
  if (view == ExportView::Bias) return bias_figure(state, results, kExportSide);
  if (view == ExportView::Shift) return shift_figure(state, results.problem.width(), 520.0f, 320.0f);
  if (view == ExportView::Patterns) return patterns_figure(state.model, results.problem.width(), 320.0f);
  if (view == ExportView::Magnitude) return magnitude_figure(state.model, results, 640.0f, 360.0f).figure;
  if (view == ExportView::Distance) return distance_export_figure(results);
  if (view == ExportView::Frequencies)
    return frequencies_figure(state.model, rotary_for(state, results, request), results.problem.queries(), 640.0f,
                              360.0f)
        .figure;
  // Long sentences: no more cells' texels than the PNG has pixels for them (each the block's maximum).
  plot::HeatmapSpec spec = attention_spec(state, results, kExportSide);
  spec.max_texels = static_cast<int>(std::ceil(spec.side * request.scale));
  return plot::build_heatmap(spec, plot::figure_text_measure()).figure;
}

namespace {

Result<std::string> csv_of(ExportView view, const State& state, const Results& results, const EmbeddingTable& table,
                           const ExportRequest& request) {
  std::ostringstream csv;
  switch (view) {
    case ExportView::Heads:
    case ExportView::FrequencyUsage: return Error{"the " + std::string(to_string(view)) + " view needs a model folder (--model DIR)"};
    case ExportView::Extrapolation: return Error{"the extrapolation view needs trained models (--models DIR,DIR,...)"};
    case ExportView::Dog: return dog_csv(state, table);
    case ExportView::Rope2d: return rope2d_csv(state);
    case ExportView::RopeImage: return rope_image_csv(state);
    case ExportView::Trajectory: return trajectory_csv(state, results);
    case ExportView::Distance: return distance_csv(results);
    case ExportView::Tour: return tour_csv(request.language, state, table);
    case ExportView::Attention: write_attention_csv(csv, results); break;
    case ExportView::Frequencies:
      write_frequencies_csv(csv, state.model, rotary_for(state, results, request), results.problem.queries());
      break;
    case ExportView::Bias: write_bias_csv(csv, state.model, results); break;
    case ExportView::Patterns: csv << patterns_csv(state.model, results.problem.width()); break;
    case ExportView::Shift: csv << shift_csv(state, results.problem.width()); break;
    case ExportView::Magnitude: {
      // Tidy: one row per (encoding, position); the embedding norm is the same on every row.
      const MagnitudeData data = magnitude_data(state.model, results, kMagnitudePositions);
      csv << "encoding,position,pe_norm,embedding_norm\n";
      for (const auto& [name, norms] : data.norms)
        for (std::size_t p = 0; p < norms.size(); ++p)
          csv << csv_field(name) << ',' << p << ',' << format_float(static_cast<float>(norms[p])) << ','
              << format_float(static_cast<float>(data.embedding_norm)) << '\n';
      break;
    }
  }
  return csv.str();
}

}  // namespace

void export_all_abort(const ExportAllPlan& plan) {
  std::error_code ec;
  std::filesystem::remove_all(plan.staging, ec);
  if (!plan.existed) std::filesystem::remove(plan.dir, ec);
}

Result<ExportAllPlan> export_all_begin(const State& state, const Results& results, const EmbeddingTable& table,
                                       const std::filesystem::path& dir, float scale) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (dir.empty()) return Error{"no folder given for the export"};
  ExportAllPlan plan;
  plan.dir = dir;
  plan.existed = fs::exists(dir, ec);
  if (plan.existed && !fs::is_directory(dir, ec)) return Error{dir.string() + ": is a file, not a folder"};
  if (!plan.existed && !fs::create_directories(dir, ec))
    return Error{dir.string() + ": cannot create the folder: " + ec.message()};
  plan.staging = dir / (".poslab-export-" + std::to_string(::getpid()));
  if (!fs::create_directory(plan.staging, ec)) {
    const std::string why = ec.message();
    export_all_abort(plan);
    return Error{dir.string() + ": cannot write in the folder: " + why};
  }
  for (ExportView view : all_views()) {
    const std::string stem(to_string(view));
    ExportRequest request;
    request.png = (plan.staging / (stem + ".png")).string();
    request.svg = (plan.staging / (stem + ".svg")).string();
    request.csv = (plan.staging / (stem + ".csv")).string();
    request.scale = scale;
    std::vector<std::string> ignored;
    auto figure = export_all_but_png(view, state, results, table, request, ignored);
    if (!figure) {
      export_all_abort(plan);
      return Error{stem + ": " + figure.error()};
    }
    plan.pngs.push_back({std::move(*figure), request.png, scale});
    for (const char* ext : {".png", ".svg", ".csv"}) plan.names.push_back(stem + ext);
  }
  return plan;
}

Status export_all_commit(const ExportAllPlan& plan, std::vector<std::string>& written) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const std::string& name : plan.names) {
    fs::rename(plan.staging / name, plan.dir / name, ec);
    if (ec) {
      const std::string why = ec.message();
      export_all_abort(plan);
      return Error{(plan.dir / name).string() + ": cannot move into place: " + why};
    }
    written.push_back((plan.dir / name).string());
  }
  fs::remove(plan.staging, ec);
  return Ok{};
}

Status export_all_views(const State& state, const Results& results, const EmbeddingTable& table,
                        const std::filesystem::path& dir, float scale, std::vector<std::string>& written) {
  auto plan = export_all_begin(state, results, table, dir, scale);
  if (!plan) return Error{plan.error()};
  for (const PendingPng& png : plan->pngs) {
    auto image = plot::render_figure(png.figure, png.scale);
    std::vector<std::string> ignored;
    Status s = image ? write_png_image(*image, png.path, ignored) : Status(Error{png.path + ": " + image.error()});
    if (!s) {
      export_all_abort(*plan);
      return s;
    }
  }
  return export_all_commit(*plan, written);
}

Status write_export(const plot::Figure* figure, const std::string* csv, const ExportRequest& request,
                    std::vector<std::string>& written) {
  if (figure && !request.png.empty()) {
    auto image = plot::render_figure(*figure, request.scale);
    if (!image) return Error{request.png + ": " + image.error()};
    if (auto s = write_png_image(*image, request.png, written); !s) return s;
  }
  if (figure && !request.svg.empty()) {
    if (auto s = write_file_atomic(request.svg, plot::render_svg(*figure)); !s) return s;
    written.push_back(request.svg + " (SVG)");
  }
  if (csv && !request.csv.empty()) {
    if (auto s = write_file_atomic(request.csv, *csv); !s) return s;
    written.push_back(request.csv + " (CSV)");
  }
  return Ok{};
}

Result<plot::Figure> export_all_but_png(ExportView view, const State& state, const Results& results,
                                        const EmbeddingTable& table, const ExportRequest& request,
                                        std::vector<std::string>& written) {
  Result<plot::Figure> figure = plot::Figure{};
  if (!request.png.empty() || !request.svg.empty()) figure = view_figure(view, state, results, table, request);
  if (!figure) return Error{figure.error()};
  ExportRequest rest = request;
  rest.png.clear();
  if (view == ExportView::Attention && !request.csv.empty()) {
    // Streamed to the file: at long lengths the CSV (T² rows per head) would not fit in memory.
    rest.csv.clear();
    if (auto s = write_export(&*figure, nullptr, rest, written); !s) return Error{s.error()};
    if (auto s = write_stream_atomic(request.csv, [&](std::ostream& out) { write_attention_csv(out, results); }); !s)
      return Error{s.error()};
    written.push_back(request.csv + " (CSV)");
    return figure;
  }
  Result<std::string> csv = std::string();
  if (!request.csv.empty()) csv = csv_of(view, state, results, table, request);
  if (!csv) return Error{csv.error()};
  if (auto s = write_export(&*figure, &*csv, rest, written); !s) return Error{s.error()};
  return figure;
}

Status write_png_image(const plot::RgbaImage& image, const std::string& path, std::vector<std::string>& written) {
  if (auto s = write_file_atomic(path, plot::encode_png(image)); !s) return s;
  written.push_back(path + " (" + std::to_string(image.width) + "×" + std::to_string(image.height) + " PNG)");
  return Ok{};
}

Status export_view(ExportView view, const State& state, const Results& results, const EmbeddingTable& table,
                   const ExportRequest& request, std::vector<std::string>& written) {
  auto figure = export_all_but_png(view, state, results, table, request, written);
  if (!figure) return Error{figure.error()};
  ExportRequest png_only;
  png_only.png = request.png;
  png_only.scale = request.scale;
  return write_export(&*figure, nullptr, png_only, written);
}

}  // namespace poslab

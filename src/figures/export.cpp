#include "figures/export.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/atomic_stream.hpp"
#include "core/export_data.hpp"
#include "plot/render.hpp"
#include "plot/svg.hpp"
#include "figures/html_page.hpp"
#include "figures/views.hpp"

namespace poslab {

const std::vector<ViewId>& all_views() {
  static const std::vector<ViewId> views = [] {
    std::vector<ViewId> v;
    for (const ViewInfo& info : view_registry())
      if (info.in_all_views && info.needs == ViewNeeds::Embeddings) v.push_back(info.id);
    return v;
  }();
  return views;
}

std::string view_names() {
  return view_names_where([](const ViewInfo& v) { return v.in_all_views && v.needs == ViewNeeds::Embeddings; });
}

std::string_view to_string(ViewId view) { return view_info(view).name; }

Flag head_dim_flag(int& into) {
  return integer_flag("--head-dim", "N", "frequencies: the head width drawn (default: the state's d_h)", 2, 65536, into);
}

namespace {

ViewInputs inputs_of(const State& state, const Results& results, const EmbeddingTable& table, const ExportRequest& request) {
  return {state, results, table, request.head_dim, request.scale, request.tour_step, request.language};
}

}  // namespace

Result<plot::Figure> view_figure(ViewId view, const State& state, const Results& results,
                                 const EmbeddingTable& table, const ExportRequest& request) {
  const ViewInfo& info = view_info(view);
  if (!info.figure) return Error{needs_message(info)};
  return info.figure(inputs_of(state, results, table, request));
}

namespace {

Result<std::string> csv_of(ViewId view, const State& state, const Results& results, const EmbeddingTable& table,
                           const ExportRequest& request) {
  const ViewInfo& info = view_info(view);
  if (!info.csv) return Error{needs_message(info)};
  return info.csv(inputs_of(state, results, table, request));
}

}  // namespace

void export_all_abort(const ExportAllPlan& plan) {
  std::error_code ec;
  std::filesystem::remove_all(plan.staging, ec);
  if (!plan.existed) std::filesystem::remove(plan.dir, ec);
}

namespace {

// One of a shown model's views into the staging folder: its SVG and CSV now, its PNG pending.
Status stage_model_view(const ShownModelView& v, ExportAllPlan& plan, float scale) {
  const std::string stem(to_string(v.view));
  ExportRequest request;
  request.svg = (plan.staging / (stem + ".svg")).string();
  request.csv = (plan.staging / (stem + ".csv")).string();
  std::vector<std::string> ignored;
  if (auto s = write_export(&v.output.figure, &v.output.csv, request, ignored); !s) return s;
  plan.pngs.push_back({v.output.figure, (plan.staging / (stem + ".png")).string(), scale});
  for (const char* ext : {".png", ".svg", ".csv"}) plan.names.push_back(stem + ext);
  return Ok{};
}

}  // namespace

Result<ExportAllPlan> export_all_begin(const State& state, const Results& results, const EmbeddingTable& table,
                                       const std::filesystem::path& dir, float scale,
                                       const std::vector<ShownModelView>& shown) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (dir.empty()) return Error{"no folder given for the export"};
  ExportAllPlan plan;
  plan.dir = dir;
  plan.existed = fs::exists(dir, ec);
  if (plan.existed && !fs::is_directory(dir, ec)) return Error{dir.string() + ": is a file, not a folder"};
  if (!plan.existed && !fs::create_directories(dir, ec))
    return Error{dir.string() + ": cannot create the folder: " + ec.message()};
  plan.staging = dir / (".poslab-export-" + unique_temp_tag());
  if (!fs::create_directory(plan.staging, ec)) {
    const std::string why = ec.message();
    export_all_abort(plan);
    return Error{dir.string() + ": cannot write in the folder: " + why};
  }
  const auto shown_of = [&](ViewId view) {
    const auto it = std::find_if(shown.begin(), shown.end(), [&](const ShownModelView& v) { return v.view == view; });
    return it == shown.end() ? nullptr : &*it;
  };
  for (ViewId view : all_views()) {
    const std::string stem(to_string(view));
    if (const ShownModelView* instead = shown_of(view)) {
      if (auto s = stage_model_view(*instead, plan, scale); !s) {
        export_all_abort(plan);
        return Error{stem + ": " + s.error()};
      }
      continue;
    }
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
  for (const ShownModelView& v : shown) {
    if (std::find(all_views().begin(), all_views().end(), v.view) != all_views().end()) continue;
    if (auto s = stage_model_view(v, plan, scale); !s) {
      export_all_abort(plan);
      return Error{std::string(to_string(v.view)) + ": " + s.error()};
    }
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

void plan_request(const ExportRequest& request, OutputPlan& plan) {
  plan.add("--png", request.png);
  plan.add("--svg", request.svg);
  plan.add("--csv", request.csv);
  plan.add("--html", request.html);
}

namespace {

// A plan of the request's files, prepared: their names checked and their temporary files made.
// Its messages name the files alone: the GUI has no flags.
Status prepared_plan(const ExportRequest& request, OutputPlan& plan) {
  plan.add("", request.png);
  plan.add("", request.svg);
  plan.add("", request.csv);
  plan.add("", request.html);
  const OutputPlan::Problem problem = plan.prepare();
  if (problem.exit_code != 0) return Error{problem.message};
  return Ok{};
}

Result<plot::Figure> export_all_but_png_into(ViewId view, const State& state, const Results& results,
                                             const EmbeddingTable& table, const ExportRequest& request,
                                             OutputPlan& plan, std::vector<std::string>& written);

}  // namespace

Status write_png_into(const plot::RgbaImage& image, const std::string& path, OutputPlan& plan,
                      std::vector<std::string>& written) {
  if (auto s = plan.write(path, plot::encode_png(image)); !s) return s;
  written.push_back(path + " (" + std::to_string(image.width) + "×" + std::to_string(image.height) + " PNG)");
  return Ok{};
}

Status write_export(const plot::Figure* figure, const std::string* csv, const ExportRequest& request,
                    OutputPlan& plan, std::vector<std::string>& written) {
  if (figure && !request.png.empty()) {
    auto image = plot::render_figure(*figure, request.scale);
    if (!image) return Error{request.png + ": " + image.error()};
    if (auto s = write_png_into(*image, request.png, plan, written); !s) return s;
  }
  if (figure && !request.svg.empty()) {
    if (auto s = plan.write(request.svg, plot::render_svg(*figure)); !s) return s;
    written.push_back(request.svg + " (SVG)");
  }
  if (csv && !request.csv.empty()) {
    if (auto s = plan.write(request.csv, *csv); !s) return s;
    written.push_back(request.csv + " (CSV)");
  }
  return Ok{};
}

Status write_export(const plot::Figure* figure, const std::string* csv, const ExportRequest& request,
                    std::vector<std::string>& written) {
  OutputPlan plan;
  if (auto s = prepared_plan(request, plan); !s) return s;
  std::vector<std::string> done;
  if (auto s = write_export(figure, csv, request, plan, done); !s) return s;
  if (auto s = plan.commit(); !s) return s;
  written.insert(written.end(), done.begin(), done.end());
  return Ok{};
}

namespace {

Result<plot::Figure> export_all_but_png_into(ViewId view, const State& state, const Results& results,
                                             const EmbeddingTable& table, const ExportRequest& request,
                                             OutputPlan& plan, std::vector<std::string>& written) {
  Result<plot::Figure> figure = plot::Figure{};
  if (!request.png.empty() || !request.svg.empty()) figure = view_figure(view, state, results, table, request);
  if (!figure) return Error{figure.error()};
  if (!request.html.empty()) {
    if (view != ViewId::Attention) return Error{"--html: an interactive page is written for the attention view (and a model's heads), not " + std::string(to_string(view))};
    auto page = attention_page(state, results);
    if (!page) return Error{page.error()};
    if (auto s = plan.write(request.html, *page); !s) return Error{s.error()};
    written.push_back(request.html + " (HTML)");
  }
  ExportRequest rest = request;
  rest.png.clear();
  rest.html.clear();
  if (view == ViewId::Attention && !request.csv.empty()) {
    // Streamed to the file: at long lengths the CSV (T² rows per head) would not fit in memory.
    rest.csv.clear();
    if (auto s = write_export(&*figure, nullptr, rest, plan, written); !s) return Error{s.error()};
    if (auto s = plan.write_stream(request.csv, [&](std::ostream& out) { write_attention_csv(out, results); }); !s)
      return Error{s.error()};
    written.push_back(request.csv + " (CSV)");
    return figure;
  }
  Result<std::string> csv = std::string();
  if (!request.csv.empty()) csv = csv_of(view, state, results, table, request);
  if (!csv) return Error{csv.error()};
  if (auto s = write_export(&*figure, &*csv, rest, plan, written); !s) return Error{s.error()};
  return figure;
}

}  // namespace

Result<plot::Figure> export_all_but_png(ViewId view, const State& state, const Results& results,
                                        const EmbeddingTable& table, const ExportRequest& request,
                                        std::vector<std::string>& written) {
  ExportRequest rest = request;
  rest.png.clear();  // drawn by the caller, on its own thread
  OutputPlan plan;
  if (auto s = prepared_plan(rest, plan); !s) return Error{s.error()};
  std::vector<std::string> done;
  auto figure = export_all_but_png_into(view, state, results, table, request, plan, done);
  if (!figure) return figure;
  if (auto s = plan.commit(); !s) return Error{s.error()};
  written.insert(written.end(), done.begin(), done.end());
  return figure;
}

Result<plot::Figure> export_begin(ViewId view, const State& state, const Results& results, const EmbeddingTable& table,
                                  const ExportRequest& request, OutputPlan& plan, std::vector<std::string>& written) {
  if (auto s = prepared_plan(request, plan); !s) return Error{s.error()};
  return export_all_but_png_into(view, state, results, table, request, plan, written);
}

std::string nothing_written(const ExportRequest& request) {
  std::vector<std::string> paths;
  for (const std::string* path : {&request.png, &request.svg, &request.csv, &request.html})
    if (!path->empty()) paths.push_back(*path);
  if (paths.size() == 1) return "did not write " + paths.front() + ": ";
  std::string list;
  for (std::size_t k = 0; k < paths.size(); ++k)
    list += (k == 0 ? "" : k + 1 == paths.size() ? " and " : ", ") + paths[k];
  return "wrote none of " + list + ": ";
}

Status write_png_image(const plot::RgbaImage& image, const std::string& path, std::vector<std::string>& written) {
  if (auto s = write_file_atomic(path, plot::encode_png(image)); !s) return s;
  written.push_back(path + " (" + std::to_string(image.width) + "×" + std::to_string(image.height) + " PNG)");
  return Ok{};
}

Status export_view(ViewId view, const State& state, const Results& results, const EmbeddingTable& table,
                   const ExportRequest& request, OutputPlan& plan, std::vector<std::string>& written) {
  auto figure = export_all_but_png_into(view, state, results, table, request, plan, written);
  if (!figure) return Error{figure.error()};
  ExportRequest png_only;
  png_only.png = request.png;
  png_only.scale = request.scale;
  return write_export(&*figure, nullptr, png_only, plan, written);
}

Status export_view(ViewId view, const State& state, const Results& results, const EmbeddingTable& table,
                   const ExportRequest& request, std::vector<std::string>& written) {
  OutputPlan plan;
  if (auto s = prepared_plan(request, plan); !s) return s;
  std::vector<std::string> done;
  if (auto s = export_view(view, state, results, table, request, plan, done); !s) return s;
  if (auto s = plan.commit(); !s) return s;
  written.insert(written.end(), done.begin(), done.end());
  return Ok{};
}

}  // namespace poslab

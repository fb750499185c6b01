// `poslab export VIEW …` and `poslab export all`: the views of the embeddings, headless.
#include "cli/commands.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/attention/backend_choice.hpp"
#include "core/export_data.hpp"
#include "core/formats/formats.hpp"
#include "core/options.hpp"
#include "core/session.hpp"
#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"
#include "figures/assets.hpp"
#include "core/formats/bpe.hpp"
#include "core/tour/tour.hpp"
#include "plot/draw.hpp"
#include "figures/export.hpp"
#include "figures/launch.hpp"
#include "figures/model.hpp"
#include "core/model/model_run.hpp"
#include "figures/attention.hpp"
#include "cli/args.hpp"
#include "cli/train_cli.hpp"
#include "cli/animate_cli.hpp"

namespace poslab {

namespace {

// What `export VIEW …` was asked for.
struct ExportArgs {
  ViewId view = ViewId::Attention;
  bool all = false;  // every view into one folder
  State state;
  ExportRequest request;
  std::string save_session, folder;
};

// The options after VIEW; an error is the user's (a usage error).
Status parse_export_options(ArgParser& p, ExportArgs& e) {
  while (!p.done()) {
    const ParsedOption opt = split_option(p.next());
    if (auto applied = try_state_option(e.state, p, opt)) {
      if (!*applied) return *applied;
      continue;
    }
    if (opt.name == "--save-session") {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return Error{v.error()};
      e.save_session = std::string(*v);
      continue;
    }
    if ((opt.name == "--step" || opt.name == "--lang") && e.view == ViewId::Tour) {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return Error{v.error()};
      if (opt.name == "--lang") {
        auto language = parse_language(*v);
        if (!language) return Error{language.error()};
        e.request.language = *language;
      } else {
        auto step = parse_integer(*v, "--step", 1, static_cast<long long>(tour_steps().size()));
        if (!step) return Error{step.error()};
        e.request.tour_step = static_cast<int>(*step) - 1;
      }
      continue;
    }
    if (opt.name == "--dir" && e.all) {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return Error{v.error()};
      e.folder = std::string(*v);
      continue;
    }
    if (opt.name == "--head-dim" && e.view == ViewId::Frequencies && !e.all) {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return Error{v.error()};
      auto n = parse_integer(*v, "--head-dim", 2, 65536);
      if (!n) return Error{n.error()};
      e.request.head_dim = static_cast<int>(*n);
      continue;
    }
    if ((opt.name == "--png" || opt.name == "--svg" || opt.name == "--csv") && e.all)
      return Error{"export all writes DIR/VIEW.png, .svg and .csv: give --dir DIR instead of " + std::string(opt.name)};
    if (opt.name == "--png" || opt.name == "--svg" || opt.name == "--csv" || opt.name == "--scale") {
      auto v = p.value_of(opt.name, opt.inline_value, opt.has_inline);
      if (!v) return Error{v.error()};
      if (opt.name == "--png") e.request.png = std::string(*v);
      else if (opt.name == "--svg") e.request.svg = std::string(*v);
      else if (opt.name == "--csv") e.request.csv = std::string(*v);
      else {
        auto scale = parse_integer(*v, "--scale", 1, 8);
        if (!scale) return Error{scale.error()};
        e.request.scale = static_cast<float>(*scale);
      }
      continue;
    }
    return Error{"unknown option \"" + std::string(opt.name) + "\" for export"};
  }
  if (e.all && e.folder.empty()) return Error{"export all needs a folder: poslab export all --dir figures"};
  if (!e.all && e.request.png.empty() && e.request.svg.empty() && e.request.csv.empty())
    return Error{"nothing to write: give --png FILE, --svg FILE and/or --csv FILE"};
  return Ok{};
}

// The views of the embeddings: the pipeline runs once, then the view (or every view) is written.
int export_embeddings_views(ExportArgs& e) {
  State& state = e.state;
  const ExportRequest& request = e.request;
  if (e.view == ViewId::Tour) state = tour_state(request.tour_step, state);  // as a reader pressing Next up to it
  Workspace workspace;
  const std::string path = state.embeddings_path.empty() ? asset_path(kDefaultEmbeddingsFile) : state.embeddings_path;
  if (auto s = workspace.load_embeddings(path, state.vocab_path, state.tensor_name); !s) return runtime_error(s.error());
  // A GL context with no display: needed for the GPU path and for rendering the PNG.
  // The note about a missing GPU path reaches stderr with the results' notes below.
  HeadlessGpu g = open_headless_gpu(state.backend);
  if (!g.context && (!request.png.empty() || e.all)) return runtime_error("PNG export needs OpenGL: " + g.unavailable);
  workspace.set_gpu_backend(g.backend.get(), g.unavailable, g.renderer);
  if (!e.all && e.view == ViewId::Attention && request.csv.empty() && !state.view.mean_heads) {
    // One head's heatmap: only its weights (or scores) are kept, not every head's T × T matrices.
    MatricesKept keep;
    keep.head = state.view.head;
    keep.scores = state.view.value == HeatmapValue::Scores;
    keep.weights = state.view.value == HeatmapValue::Weights;
    workspace.keep_matrices(keep);
  }
  std::fprintf(stderr, "poslab: attention: %s\n", g.choice.reason.c_str());
  if (auto s = workspace.update(state); !s) return runtime_error(s.error());
  const Results& results = *workspace.results();
  if (!state.view.mean_heads && state.view.head >= results.problem.heads)
    return usage_error("--head " + std::to_string(state.view.head) + " is out of range: there are " +
                       std::to_string(results.problem.heads) + " heads (0 to " + std::to_string(results.problem.heads - 1) + ")");
  for (const auto& note : results.notes) std::fprintf(stderr, "poslab: %s\n", note.c_str());
  if (!e.save_session.empty()) {
    if (auto s = write_file_atomic(e.save_session, session_json(state)); !s) return runtime_error(s.error());
    std::printf("wrote %s (session)\n", e.save_session.c_str());
  }
  std::vector<std::string> written;
  if (e.all) {
    if (auto s = export_all_views(state, results, workspace.embeddings(), e.folder, request.scale, written); !s)
      return runtime_error(s.error());
    std::printf("wrote %zu files into %s\n", written.size(), e.folder.c_str());
    return 0;
  }
  if (auto s = export_view(e.view, state, results, workspace.embeddings(), request, written); !s)
    return runtime_error(s.error());
  for (const auto& w : written) std::printf("wrote %s\n", w.c_str());
  return 0;
}

}  // namespace

int run_export(ArgParser& p) {
  if (p.done()) return usage_error("export needs a view: poslab export attention --png out.png");
  const std::string_view view_name = p.next();
  ExportArgs e;
  e.all = view_name == "all";
  const auto view = e.all ? std::optional<ViewId>(ViewId::Attention) : view_named(view_name);
  if (!view || (view_info(*view).is_tab() && !view_info(*view).figure))
    return usage_error("unknown view \"" + std::string(view_name) + "\" (available: " + view_names() +
                       ", tour, heads, frequency-usage, extrapolation, all)");
  e.view = *view;
  if (auto s = parse_export_options(p, e); !s) return usage_error(s.error());
  if (!e.all && view_needs_model(e.view, e.state)) return run_model_export(e.view, e.state, e.request);
  return export_embeddings_views(e);
}

}  // namespace poslab

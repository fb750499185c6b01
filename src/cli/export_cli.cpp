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
#include "tokenizer/tokenizer.hpp"
#include "core/tour/tour.hpp"
#include "plot/draw.hpp"
#include "figures/export.hpp"
#include "figures/launch.hpp"
#include "figures/model.hpp"
#include "core/model/model_run.hpp"
#include "figures/attention.hpp"
#include "cli/args.hpp"
#include "cli/command_table.hpp"
#include "cli/train_cli.hpp"
#include "cli/animate_cli.hpp"
#include "core/encodings/encodings.hpp"
#include "figures/rope2d.hpp"

namespace poslab {

namespace {

// What `export VIEW …` was asked for.
struct ExportArgs {
  ViewId view = ViewId::Attention;
  bool all = false;  // every view into one folder
  State state;
  ExportRequest request;
  std::string save_session, folder;
  OutputPlan plan;  // the files above, checked before any work
};

// export all's message when --dir is missing (or empty).
constexpr std::string_view kNeedsFolder = "export all needs a folder: poslab export all --dir figures";

// Whether the view writes an interactive page (--html).
bool writes_html(ViewId view) { return view == ViewId::Attention || view == ViewId::Heads; }

// The options of `export VIEW`, each declared once; which exist depends on the view.
std::vector<Flag> export_flags(ExportArgs& e) {
  std::vector<Flag> flags;
  if (e.all) flags.push_back(needed(text_flag("--dir", "DIR", "the folder the files are written into", e.folder), std::string(kNeedsFolder)));
  if (e.view == ViewId::Tour) {
    flags.push_back(tour_step_flag(e.request.tour_step));
    flags.push_back(language_flag(e.request.language));
  }
  flags.push_back(text_flag("--save-session", "FILE", "write the state it used as a session", e.save_session));
  if (!e.all) {
    for (Flag& f : figure_file_flags(e.request)) flags.push_back(std::move(f));
    if (writes_html(e.view))
      flags.push_back(text_flag("--html", "FILE",
                                "attention, heads: one page that shows each cell's values under the pointer, with a head "
                                "selector; nothing fetched from a network",
                                e.request.html));
  }
  if (e.view == ViewId::Frequencies && !e.all) flags.push_back(head_dim_flag(e.request.head_dim));
  flags.push_back(scale_flag(e.request.scale));
  return flags;
}

// The options after VIEW; an error is the user's (a usage error).
Status parse_export_options(ArgParser& p, ExportArgs& e) {
  const auto unknown = [&e](std::string_view name) {
    if (e.all && (name == "--png" || name == "--svg" || name == "--csv"))
      return "export all writes DIR/VIEW.png, .svg and .csv: give --dir DIR instead of " + std::string(name);
    if (!e.all && name == "--html")
      return "--html writes an interactive page of export attention or export heads, not of " + std::string(to_string(e.view));
    return "unknown option \"" + std::string(name) + "\" for export";
  };
  if (auto s = p.parse(export_flags(e), &e.state, unknown); !s) return s;
  if (e.all && e.folder.empty()) return Error{std::string(kNeedsFolder)};
  if (!e.all && e.request.png.empty() && e.request.svg.empty() && e.request.csv.empty() && e.request.html.empty())
    return Error{"nothing to write: give --png FILE, --svg FILE, --csv FILE and/or --html FILE"};
  return Ok{};
}

// The export's files as one plan: the request's, --save-session, export all's folder; none may
// replace an input.
int prepare_export_outputs(ExportArgs& e) {
  plan_request(e.request, e.plan);
  e.plan.add("--save-session", e.save_session);
  e.plan.add_checked("--dir", e.folder, true);  // export all stages its files inside the folder itself
  plan_state_inputs(e.plan, e.state);
  return prepare_outputs(e.plan);
}

// The outputs alone, before the options are read: reading --model ORG/NAME may download a whole
// model, which must not happen for an export that cannot write its files. (Checked again with
// the inputs once everything is read.)
int check_outputs_first(const ArgParser& p, const ExportArgs& e) {
  ExportArgs first;
  first.view = e.view;
  first.all = e.all;
  p.peek(export_flags(first));
  OutputPlan plan;
  plan_request(first.request, plan);
  plan.add("--save-session", first.save_session);
  plan.add_checked("--dir", first.folder, true);
  return prepare_outputs(plan);
}

// The views of the embeddings: the pipeline runs once, then the view (or every view) is written.
int export_embeddings_views(const ArgParser& p, ExportArgs& e) {
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
  if (!e.all && e.view == ViewId::Attention && request.csv.empty() && request.html.empty() && !state.view.mean_heads) {
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
  const GivenFlag given = [&](std::string_view name) { return flag_given(p, name); };
  if (auto s = check_given_indices(given, state, results); !s) return usage_error(s.error());
  for (const auto& note : results.notes) std::fprintf(stderr, "poslab: %s\n", note.c_str());
  if (!e.save_session.empty())
    if (auto s = e.plan.write(e.save_session, session_json(state, e.save_session)); !s) return runtime_error(s.error());
  std::vector<std::string> written;
  if (e.all) {
    if (auto s = export_all_views(state, results, workspace.embeddings(), e.folder, request.scale, written); !s)
      return runtime_error(s.error());
  } else if (auto s = export_view(e.view, state, results, workspace.embeddings(), request, e.plan, written); !s) {
    return runtime_error(s.error());
  }
  if (auto s = e.plan.commit(); !s) return runtime_error(s.error());
  if (!e.save_session.empty()) std::printf("wrote %s (session)\n", e.save_session.c_str());
  if (e.all) std::printf("wrote %zu files into %s\n", written.size(), e.folder.c_str());
  else
    for (const auto& w : written) std::printf("wrote %s\n", w.c_str());
  return 0;
}

// Every flag of `more` that `into` lacks, after the flag it follows in `more`.
void merge_flags(std::vector<Flag>& into, std::vector<Flag> more) {
  std::size_t at = 0;
  for (Flag& f : more) {
    const auto it = std::find_if(into.begin(), into.end(), [&](const Flag& g) { return g.name == f.name; });
    if (it != into.end()) {
      at = static_cast<std::size_t>(it - into.begin()) + 1;
      continue;
    }
    into.insert(into.begin() + static_cast<std::ptrdiff_t>(at++), std::move(f));
  }
}

}  // namespace

FlagTable export_flag_table(std::string_view view) {
  // VIEW: the flags of every view it stands for together, each view's on arguments of its own.
  const bool every = view == kViewWord;
  const std::vector<ViewId> views = every ? all_views() : std::vector<ViewId>{view_named(view).value_or(ViewId::Attention)};
  auto args = std::make_shared<std::vector<ExportArgs>>(views.size());
  std::vector<Flag> flags;
  for (std::size_t k = 0; k < views.size(); ++k) {
    ExportArgs& e = (*args)[k];
    e.view = views[k];
    e.all = view == "all";
    merge_flags(flags, export_flags(e));
  }
  return {std::move(args), std::move(flags)};
}

int run_export(ArgParser& p) {
  if (is_animation_request(p.args)) return run_animation_export(p);
  if (p.done()) return usage_error("export needs a view: poslab export attention --png out.png");
  const std::string_view view_name = p.next();
  ExportArgs e;
  e.all = view_name == "all";
  const auto view = e.all ? std::optional<ViewId>(ViewId::Attention) : view_named(view_name);
  if (!view || !view_exports(view_info(*view)))
    return usage_error("unknown view \"" + std::string(view_name) + "\" (available: " + view_names_where(view_exports) +
                       ", all, paper)");
  e.view = *view;
  if (const int code = check_outputs_first(p, e)) return code;
  if (auto s = parse_export_options(p, e); !s) return parse_error(p, s);
  if (!e.all && view_needs_model(e.view, e.state)) return run_model_export(e.view, e.state, e.request, e.save_session);
  if (const int code = prepare_export_outputs(e)) return code;
  return export_embeddings_views(p, e);
}

}  // namespace poslab

// Models named on the Hub, on the command line: download reports and `export training`.
#include "cli/hub_cli.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>

#include "hub/resolve.hpp"
#include "core/model_resolver.hpp"
#include "core/options.hpp"
#include "figures/training_run.hpp"
#include "figures/export.hpp"
#include "figures/training.hpp"
#include "gpu/headless.hpp"

namespace poslab {

namespace {

// The download's progress on stderr: a bar on a terminal, a line per finished file elsewhere.
struct StderrProgress {
  bool terminal = ::isatty(2) != 0;
  int files_reported = 0;
  std::chrono::steady_clock::time_point drawn{};
  void operator()(const hub::DownloadProgress& p) {
    if (terminal) {
      // Redrawn ten times a second at most, and once more when a file is done.
      const auto now = std::chrono::steady_clock::now();
      if (now - drawn < std::chrono::milliseconds(100) && p.files_done == files_reported) return;
      drawn = now;
      files_reported = p.files_done;
      const double share = p.total_bytes ? static_cast<double>(p.done_bytes) / static_cast<double>(p.total_bytes) : 1.0;
      const int filled = static_cast<int>(share * 30.0 + 0.5);
      std::fprintf(stderr, "\r  [%.*s%.*s] %3.0f%%  %s / %s  %-40.40s", filled, "##############################", 30 - filled,
                   "                              ", 100.0 * share, hub::format_bytes(p.done_bytes).c_str(),
                   hub::format_bytes(p.total_bytes).c_str(), p.file.c_str());
      return;
    }
    if (p.files_done == files_reported) return;
    files_reported = p.files_done;
    std::fprintf(stderr, "poslab: downloaded %d/%d files of %s, %s of %s\n", p.files_done, p.files_total, p.model.text().c_str(),
                 hub::format_bytes(p.done_bytes).c_str(), hub::format_bytes(p.total_bytes).c_str());
  }
  void finished() {
    if (terminal) std::fprintf(stderr, "\n");
    files_reported = 0;
  }
};

// What a fetch waits for, on its own line (after a bar drawn in place, a new line first).
void say_waiting(const std::string& what) {
  static std::mutex m;  // two downloads may wait at once
  std::lock_guard lock(m);
  std::fprintf(stderr, "%sposlab: waiting: %s\n", ::isatty(2) ? "\n" : "", what.c_str());
}

void say_plan(const hub::FetchPlan& plan) {
  int downloads = 0;
  for (const auto& f : plan.files) downloads += !f.have_blob;
  std::fprintf(stderr, "poslab: downloading %s (commit %s) into %s: %d file%s, %s\n", plan.model.text().c_str(),
               plan.commit.substr(0, 12).c_str(), hub::HubSettings::from_environment().cache.root().c_str(), downloads,
               downloads == 1 ? "" : "s", hub::format_bytes(plan.bytes_to_download()).c_str());
}

}  // namespace

void install_command_line_resolver() {
  auto progress = std::make_shared<StderrProgress>();
  hub::NameResolution r;
  r.starting = say_plan;
  r.progress = [progress](const hub::DownloadProgress& p) { (*progress)(p); };
  r.finished = [progress] { progress->finished(); };
  r.note = [](const std::string& note) { std::fprintf(stderr, "poslab: note: %s\n", note.c_str()); };
  r.waiting = say_waiting;
  install_model_resolver([r](std::string_view text) { return hub::resolve_model_argument(text, r); });
}

int run_export_training(ArgParser& p) {
  std::string model_text, revisions_text, sentence = State{}.model.sentence;
  int layer = -1, scale = 1;
  ExportRequest request;
  const std::vector<Flag> flags = {
      {"--model", [&](std::string_view v) -> Status { model_text = std::string(v); return Ok{}; }, true, false,
       "export training needs a model on the Hub: --model ORG/NAME"},
      {"--revisions", [&](std::string_view v) -> Status { revisions_text = std::string(v); return Ok{}; }, true, false,
       "export training needs the revisions to compare: --revisions step1000,step2000,..."},
      {"--layer", [&](std::string_view v) -> Status {
         auto l = parse_integer(v, "--layer", 0, 4096);
         if (!l) return Error{l.error()};
         layer = static_cast<int>(*l);
         return Ok{};
       }, true, false, "export training needs the layer whose heads are followed: --layer L"},
      text_flag("--png", request.png), text_flag("--svg", request.svg), text_flag("--csv", request.csv),
      checkpoint([&]() -> Status {
        if (request.png.empty() && request.svg.empty() && request.csv.empty())
          return Error{"nothing to write: give --csv FILE and/or --png FILE"};
        return Ok{};
      }),
      text_flag("--sentence", sentence),
      integer_flag("--scale", 1, 8, scale),
  };
  const auto unknown = [](std::string_view name) { return "unknown option \"" + std::string(name) + "\" for export training"; };
  if (auto parsed = p.parse(flags, nullptr, unknown, ParseOrder::NamesFirst); !parsed) return p.fail(parsed);
  auto name = hub::parse_model_name(model_text);
  if (!name) return usage_error("--model " + name.error());
  if (model_text.find('@') != std::string::npos) return usage_error("--model names the repository only; give its revisions with --revisions");
  auto revisions = hub::parse_revisions(revisions_text);
  if (!revisions) return usage_error(revisions.error());
  if (sentence.empty()) return usage_error("--sentence is empty: the heads need tokens to attend over");

  OutputPlan plan;
  plan_request(request, plan);
  if (const int code = prepare_outputs(plan)) return code;
  const hub::HubSettings settings = hub::HubSettings::from_environment();
  const hub::TrainingRequest training{*name, *revisions, layer, sentence};
  hub::TrainingControl planning;
  planning.waiting = say_waiting;
  auto plans = hub::plan_revisions(training, settings, planning);
  if (!plans) return runtime_error(plans.error());
  std::fprintf(stderr, "poslab: %zu revisions of %s; to download: %s\n", plans->size(), name->repo_id().c_str(),
               hub::format_bytes(hub::bytes_to_download(*plans)).c_str());
  StderrProgress progress;
  hub::TrainingControl control;
  control.waiting = say_waiting;
  control.download = [&progress](const hub::DownloadProgress& d) { progress(d); };
  control.revision_done = [&progress](int done, int total, const std::string& revision) {
    progress.finished();
    std::fprintf(stderr, "poslab: ran %s (%d/%d)\n", revision.c_str(), done, total);
  };
  auto rows = hub::run_revisions(training, *plans, settings, control);
  if (!rows) return rows.error().starts_with(hub::kLayerOutOfRange) ? usage_error(rows.error()) : runtime_error(rows.error());
  for (const auto& r : *rows) std::printf("%-24s loss %.5f\n", r.revision.c_str(), r.loss);

  request.scale = static_cast<float>(scale);
  std::unique_ptr<gpu::HeadlessContext> context;
  if (!request.png.empty()) {
    auto created = gpu::HeadlessContext::create();
    if (!created) return runtime_error("PNG export needs OpenGL: " + created.error());
    context = std::move(*created);
  }
  const plot::Figure figure = training_figure(*rows, layer, name->repo_id(), kTrainingPanel);
  const std::string csv = hub::training_csv(*rows, layer);
  std::vector<std::string> written;
  if (auto s = write_export(&figure, &csv, request, plan, written); !s) return runtime_error(s.error());
  if (auto s = plan.commit(); !s) return runtime_error(s.error());
  for (const auto& w : written) std::printf("wrote %s\n", w.c_str());
  return 0;
}

}  // namespace poslab

// Models named on the Hub, on the command line: download reports and `export training`.
#include "cli/hub_cli.hpp"

#include <cstdio>
#include <memory>

#include "hub/resolve.hpp"
#include "core/options.hpp"
#include "figures/training_run.hpp"
#include "figures/export.hpp"
#include "figures/training.hpp"
#include "gpu/headless.hpp"

namespace poslab {

namespace {

// What `poslab export training` was asked for.
struct TrainingArgs {
  std::string model_text, revisions_text, sentence = State{}.model.sentence;
  int layer = -1;
  ExportRequest request;
};

std::vector<Flag> training_flags(TrainingArgs& a) {
  std::vector<Flag> flags = {
      needed(text_flag("--model", "ORG/NAME", "a model on the Hugging Face Hub, its repository alone", a.model_text),
             "export training needs a model on the Hub: --model ORG/NAME"),
      needed(text_flag("--revisions", "R,R,...", "the revisions compared: training steps (step1000), tags or commits",
                       a.revisions_text),
             "export training needs the revisions to compare: --revisions step1000,step2000,..."),
      needed(integer_flag("--layer", "L", "the layer whose heads are followed", 0, 4096, a.layer),
             "export training needs the layer whose heads are followed: --layer L"),
  };
  add_figure_outputs(flags, a.request, "nothing to write: give --csv FILE and/or --png FILE");
  flags.push_back(text_flag("--sentence", "TEXT", "the text each revision runs on (the default sentence)", a.sentence));
  flags.push_back(scale_flag(a.request.scale));
  return flags;
}

}  // namespace

FlagTable training_flag_table() { return flag_table(training_flags); }

int run_export_training(ArgParser& p) {
  TrainingArgs a;
  const auto unknown = [](std::string_view name) { return "unknown option \"" + std::string(name) + "\" for export training"; };
  if (auto parsed = p.parse(training_flags(a), nullptr, unknown, ParseOrder::NamesFirst); !parsed) return parse_error(p, parsed);
  const std::string &model_text = a.model_text, &sentence = a.sentence;
  const int layer = a.layer;
  ExportRequest& request = a.request;
  auto name = hub::parse_model_name(model_text);
  if (!name) return usage_error("--model " + name.error());
  if (model_text.find('@') != std::string::npos) return usage_error("--model names the repository only; give its revisions with --revisions");
  auto revisions = hub::parse_revisions(a.revisions_text);
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

  std::unique_ptr<gpu::HeadlessContext> context;
  if (!request.png.empty()) {
    auto created = gpu::HeadlessContext::create();
    if (!created) return runtime_error("PNG export needs OpenGL: " + created.error());
    context = std::move(*created);
  }
  const plot::Figure figure = training_figure(*rows, layer, name->repo_id(), kTrainingPanel);
  const std::string csv = hub::training_csv(*rows, layer);
  return finish_export(figure, csv, request, plan);
}

}  // namespace poslab

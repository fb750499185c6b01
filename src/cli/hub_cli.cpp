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
  if (auto parsed = p.parse(flags, nullptr, unknown, ParseOrder::NamesFirst); !parsed) return parse_error(p, parsed);
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
  return finish_export(figure, csv, request, plan);
}

}  // namespace poslab

// A model folder's own forward pass on the command line: `export attention|heads|frequency-usage --model DIR` and `predict`.
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
#include "figures/html_page.hpp"
#include "figures/model.hpp"
#include "core/model/model_run.hpp"
#include "figures/attention.hpp"
#include "cli/args.hpp"
#include "cli/train_cli.hpp"
#include "cli/animate_cli.hpp"

namespace poslab {

namespace {

void print_run_notes(const ModelRun& run, const HeadlessGpu& g) {
  const std::string& unavailable = g.unavailable;
  std::fprintf(stderr, "poslab: attention: %s\n", g.choice.reason.c_str());
  const ForwardResult& f = run.shown();
  std::fprintf(stderr, "poslab: attention on %s%s, %.0f ms\n", f.backend.c_str(),
               unavailable.empty() ? "" : (" (GPU path unavailable: " + unavailable + ")").c_str(), f.milliseconds);
  if (f.max_diff_vs_cpu) std::fprintf(stderr, "poslab: max |GPU − CPU| %.3g\n", *f.max_diff_vs_cpu);
  for (const std::string& note : run.notes) std::fprintf(stderr, "poslab: note: %s\n", note.c_str());
}

}  // namespace

// export attention --layer L, export heads, export frequency-usage: the model's own forward pass.
int run_model_export(ViewId view, State state, const ExportRequest& request, const std::string& save_session) {
  const std::string name(to_string(view));
  OutputPlan plan;
  plan_request(request, plan);
  plan.add("--save-session", save_session);
  plan_state_inputs(plan, state);
  if (const int code = prepare_outputs(plan)) return code;
  auto model = open_state_model(state, "export " + name);
  if (!model) {
    return runtime_error(model.error());
  }
  const TransformerConfig& c = (*model)->config();
  if (auto s = check_model_indices(state, c); !s) return usage_error(s.error());
  if (auto s = check_interventions_apply(state, c); !s) return usage_error(s.error());
  if (auto s = check_model_view(view, state, c); !s) return usage_error(s.error());
  HeadlessGpu g = open_headless_gpu(state.backend);
  if (!g.context && (!request.png.empty() || !request.svg.empty())) {
    std::fprintf(stderr, "poslab: error: PNG export needs OpenGL: %s\n", g.unavailable.c_str());
    return kRuntimeError;
  }
  // A view drawn without the state's forward pass (the config's M-RoPE layout, the probe that runs
  // sentences of its own) is drawn from the model; the others from one run.
  std::optional<ModelRun> run;
  auto output = [&]() -> Result<ModelViewOutput> {
    const ViewInfo& info = view_info(view);
    if (!info.forward_pass) return info.model_output({state, c, nullptr, model->get()});
    const bool scores = info.reads_scores || !request.html.empty();  // the page shows scores too
    auto ran = run_state_model(**model, state, 5, g.backend.get(), {}, view, scores);
    if (!ran) return Error{ran.error()};
    print_run_notes(*ran, g);
    run = std::move(*ran);
    return model_view_output(view, state, *run, c, !request.csv.empty());
  }();
  if (!output) return runtime_error(output.error());
  const auto& [figure, csv] = *output;
  // The interactive page (--html): the shown run's layer, every head; or the heads grid.
  Result<std::string> page = std::string();
  if (!request.html.empty() && run)
    page = view == ViewId::Heads ? heads_page(*run, c) : attention_page(state, layer_results(run->shown(), run->request.layer, c, run->describe()));
  if (!page) return runtime_error(page.error());
  const auto session = [&](OutputPlan& p) -> Status {
    if (!request.html.empty())
      if (auto s = p.write(request.html, *page); !s) return s;
    return save_session.empty() ? Status(Ok{}) : p.write(save_session, session_json(state, save_session));
  };
  if (const int code = finish_export(figure, csv, request, plan, session)) return code;
  if (!request.html.empty()) std::printf("wrote %s (HTML)\n", request.html.c_str());
  if (!save_session.empty()) std::printf("wrote %s (session)\n", save_session.c_str());
  return 0;
}

namespace {

// What `poslab predict` was asked for besides the state.
struct PredictArgs {
  int top = 5;
};

std::vector<Flag> predict_flags(PredictArgs& a) {
  return {integer_flag("--top", "K", "the most likely next tokens listed at each position, 5 by default", 1, 1000, a.top)};
}

}  // namespace

FlagTable predict_flag_table() { return flag_table(predict_flags); }

// poslab predict --model DIR --sentence S [--top K] [state options]: one JSON object.
int run_predict(ArgParser& p) {
  State state;
  PredictArgs a;
  const auto unknown = [](std::string_view name) { return "unknown option \"" + std::string(name) + "\" for predict"; };
  if (auto s = p.parse(predict_flags(a), &state, unknown); !s) return parse_error(p, s);
  auto model = open_state_model(state, "predict");
  if (!model) {
    return runtime_error(model.error());
  }
  if (auto s = check_model_indices(state, (*model)->config()); !s) return usage_error(s.error());
  if (auto s = check_interventions_apply(state, (*model)->config()); !s) return usage_error(s.error());
  HeadlessGpu g = open_headless_gpu(state.backend);
  auto run = run_state_model(**model, state, a.top, g.backend.get(), {}, std::nullopt);  // the predictions alone
  if (!run) {
    return runtime_error(run.error());
  }
  print_run_notes(*run, g);
  std::printf("%s\n", predictions_json(run->shown()).c_str());
  return 0;
}

}  // namespace poslab

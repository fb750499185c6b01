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
#include "figures/model.hpp"
#include "core/model/model_run.hpp"
#include "figures/attention.hpp"
#include "cli/args.hpp"
#include "cli/train_cli.hpp"
#include "cli/animate_cli.hpp"

namespace poslab {

namespace {

// The state's model folder, opened; the error says what to give when there is none.
Result<std::shared_ptr<const Checkpoint>> state_model(const State& state, std::string_view command) {
  std::error_code ec;
  const std::string& path = state.embeddings_path;
  if (path.empty()) return Error{std::string(command) + " needs a model folder: --model DIR (or ORG/NAME)"};
  // Which path could not be opened (a session's, perhaps written elsewhere), not only that one is needed.
  if (!std::filesystem::exists(path, ec)) return Error{std::string(command) + ": cannot open the model folder " + path + ": it does not exist"};
  if (!std::filesystem::is_directory(path, ec))
    return Error{std::string(command) + " needs a model folder: " + path + " is a file (--model DIR, or ORG/NAME)"};
  return Checkpoint::open(path);
}

// A model folder's run for the state: its layer, with the state's changes to the positions.
Result<ModelRun> run_state_model(const Checkpoint& model, const State& state, int top_k, AttentionBackend* backend,
                                 ViewId view = ViewId::Heads) {
  ModelRequest request = model_request(state, model.config());
  request.top_k = top_k;
  request.all_layer_summaries = view == ViewId::Sinks;
  request.top_activations = view == ViewId::Activations ? kActivationsPerLayer : 0;
  RunControl control;
  control.backend = backend;
  control.check_against_cpu = backend && state.check_against_cpu;
  return run_model(model, request, control);
}

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

// --layer and --head against the model's own sizes: past the end is an error naming the range.
Status check_model_indices(const State& state, const TransformerConfig& c) {
  if (auto s = check_model_stack(state, c); !s) return s;
  const bool decoder = c.encoder_decoder() && state.model.stack != ModelStack::Encoder;
  if (state.view.layer >= 0)
    if (auto s = check_index("--layer", state.view.layer, decoder ? c.decoder_layers : c.layers,
                             decoder ? "decoder layers in the model" : "layers in the model");
        !s)
      return s;
  if (!state.view.mean_heads)
    if (auto s = check_index("--head", state.view.head, c.heads, "heads in the model"); !s) return s;
  return Ok{};
}

// export attention --layer L, export heads, export frequency-usage: the model's own forward pass.
int run_model_export(ViewId view, State state, const ExportRequest& request, const std::string& save_session) {
  const std::string name(to_string(view));
  OutputPlan plan;
  plan_request(request, plan);
  plan.add("--save-session", save_session);
  plan_state_inputs(plan, state);
  if (const int code = prepare_outputs(plan)) return code;
  auto model = state_model(state, "export " + name);
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
  // The mrope view is the config's alone: no forward pass.
  auto output = [&]() -> Result<ModelViewOutput> {
    if (view == ViewId::Mrope) return mrope_view_output(state, c);
    auto run = run_state_model(**model, state, 5, g.backend.get(), view);
    if (!run) return Error{run.error()};
    print_run_notes(*run, g);
    return model_view_output(view, state, *run, c);
  }();
  if (!output) return runtime_error(output.error());
  const auto& [figure, csv] = *output;
  std::vector<std::string> written;
  if (auto s = write_export(&figure, &csv, request, plan, written); !s) return runtime_error(s.error());
  if (!save_session.empty())
    if (auto s = plan.write(save_session, session_json(state, save_session)); !s) return runtime_error(s.error());
  if (auto s = plan.commit(); !s) return runtime_error(s.error());
  for (const auto& w : written) std::printf("wrote %s\n", w.c_str());
  if (!save_session.empty()) std::printf("wrote %s (session)\n", save_session.c_str());
  return 0;
}

// poslab predict --model DIR --sentence S [--top K] [state options]: one JSON object.
int run_predict(ArgParser& p) {
  State state;
  int top = 5;
  const auto unknown = [](std::string_view name) { return "unknown option \"" + std::string(name) + "\" for predict"; };
  if (auto s = p.parse({integer_flag("--top", 1, 1000, top)}, &state, unknown); !s) return p.fail(s);
  auto model = state_model(state, "predict");
  if (!model) {
    return runtime_error(model.error());
  }
  if (auto s = check_model_indices(state, (*model)->config()); !s) return usage_error(s.error());
  if (auto s = check_interventions_apply(state, (*model)->config()); !s) return usage_error(s.error());
  HeadlessGpu g = open_headless_gpu(state.backend);
  auto run = run_state_model(**model, state, top, g.backend.get());
  if (!run) {
    return runtime_error(run.error());
  }
  print_run_notes(*run, g);
  std::printf("%s\n", predictions_json(run->shown()).c_str());
  return 0;
}

}  // namespace poslab

#pragma once
// The command line's commands, a file per family (export_cli, model_cli, info_cli, animate_cli,
// train_cli), each reading its arguments through cli/args.hpp; cli.cpp picks one by name.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cli/args.hpp"
#include "core/attention/backend_choice.hpp"
#include "core/model/model_run.hpp"
#include "figures/export.hpp"
#include "figures/launch.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"

namespace poslab {

// The GL context with no display and the GPU backend when the state asks for it (--backend gpu,
// or auto on a hardware renderer); the reason when there is none, and which path runs and why.
struct HeadlessGpu {
  std::unique_ptr<gpu::HeadlessContext> context;
  std::unique_ptr<gpu::GpuBackend> backend;
  std::string unavailable;
  std::string renderer;  // the context's description (empty: no context)
  BackendChoice choice;
};
HeadlessGpu open_headless_gpu(Backend wanted);

// export attention --layer L, export heads, export frequency-usage: the model's own forward pass
// (and the state it used, when --save-session names a file).
int run_model_export(ViewId view, State state, const ExportRequest& request, const std::string& save_session);

// Whether the command line gave an option (an animation counts the swept one as given).
using GivenFlag = std::function<bool(std::string_view name)>;
// The index-like options given (--head, --token, --dims, --rope-pair, --patch…), against what the
// input holds: past the end is a usage error naming the valid range, never quietly moved inside.
// A value only a session or the defaults set is left to the views, which keep it inside as the
// GUI does.
Status check_given_indices(const GivenFlag& given, const State& state, const Results& results);
// --layer and --head against a model folder's own sizes.
Status check_model_indices(const State& state, const TransformerConfig& config);

// Each command, its arguments after the command's name.
int run_export(ArgParser& p);   // export VIEW | all
int run_predict(ArgParser& p);  // predict --model DIR --sentence S
int run_tokens(ArgParser& p);   // tokens --tokenizer F --sentence S …
int run_info(ArgParser& p);     // info [--embeddings F | --model DIR]
int run_tour(ArgParser& p);     // tour --list

}  // namespace poslab

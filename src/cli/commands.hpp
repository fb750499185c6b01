#pragma once
// The command line's commands, a file per family (export_cli, model_cli, info_cli, animate_cli,
// train_cli), each reading its arguments through cli/args.hpp; cli/command_table.cpp lists them
// with their flags, and cli.cpp runs the one the arguments name.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cli/args.hpp"
#include "core/attention/backend_choice.hpp"
#include "core/model/model_run.hpp"
#include "figures/export.hpp"
#include "figures/given_indices.hpp"
#include "figures/headless_gpu.hpp"
#include "figures/model_state.hpp"
#include "figures/launch.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"

namespace poslab {

// export attention --layer L, export heads, export frequency-usage: the model's own forward pass
// (and the state it used, when --save-session names a file).
int run_model_export(ViewId view, State state, const ExportRequest& request, const std::string& save_session);

// Each command, its arguments after the command's name.
int run_export(ArgParser& p);   // export VIEW | all, `p` at VIEW; with --animate, run_animation_export
int run_predict(ArgParser& p);  // predict --model DIR --sentence S
int run_tokens(ArgParser& p);   // tokens --tokenizer F --sentence S …
int run_info(ArgParser& p);     // info [--embeddings F | --model DIR]
int run_tour(ArgParser& p);     // tour --list

// Their flags, for the help (cli/command_table.hpp).
FlagTable export_flag_table(std::string_view view);  // a view's name, "all", or VIEW: every view of export all's
FlagTable predict_flag_table();
FlagTable tokens_flag_table();
FlagTable tour_flag_table();
FlagTable gui_flag_table();  // the window's own (cli.cpp)

}  // namespace poslab

#pragma once
// What every command of the command line shares: its two kinds of failure, said one way (a usage
// error names the problem and points to --help, exit 2; a runtime error is "poslab: error: …",
// exit 1), over the walk of its arguments (core/arguments.hpp: --name value or --name=value, the
// state options and --session read the same way by every command and by the Python module).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/output_plan.hpp"
#include "base/result.hpp"
#include "core/arguments.hpp"
#include "core/state.hpp"
#include "core/tour/tour_text.hpp"
#include "figures/export.hpp"

namespace poslab {

inline constexpr int kUsageError = 2;
inline constexpr int kRuntimeError = 1;

// A command's flags on arguments of their own, which the flags write into and nothing reads: what
// the help prints and its tests check, with no command line to parse. Each command builds its
// flags in one function over its arguments (train_flags(TrainArgs&)), which its run uses too.
struct FlagTable {
  std::shared_ptr<void> args;  // what the flags' `apply` functions refer to, kept alive with them
  std::vector<Flag> flags;
};

// The table of a command whose flags come from `flags` over a default `Args`.
template <typename Args>
FlagTable flag_table(std::vector<Flag> (*flags)(Args&)) {
  auto args = std::make_shared<Args>();
  std::vector<Flag> made = flags(*args);
  return {std::move(args), std::move(made)};
}

// Prints the message and returns the exit code to end with.
int usage_error(const std::string& message);
int runtime_error(const std::string& message);

// parse()'s error as the command ends with it: a file an option reads (--session, --model's
// config.json, --model-config) that is broken or lies is a bad file (exit 1); anything else is a
// bad flag or value (exit 2).
int parse_error(const ArgParser& p, const Status& s);

// Checks a command's outputs before its work starts (OutputPlan::prepare): 0 when they are fine,
// else the exit code after the message (2: outputs naming one file or an input; 1: unwritable).
int prepare_outputs(OutputPlan& plan);

// The end of every export: the figure and the CSV written as the request asks, with `extra`
// (a session, say) into the same prepared plan, all committed together or none, then "wrote F" for
// each file. 0, or 1 after the message.
int finish_export(const plot::Figure& figure, const std::string& csv, const ExportRequest& request, OutputPlan& plan,
                  const std::function<Status(OutputPlan&)>& extra = {});

// A folder the command reads (a model folder) as the plan's input, with the files in it that a
// model folder's reader opens (config.json, tokenizer files, *.safetensors): an output may sit
// beside them (runs/rope/eval.csv), never replace one.
void plan_folder_input(OutputPlan& plan, const std::string& flag, const std::filesystem::path& folder);

// The files the state reads (--embeddings or --model, --vocab, --learned-file) as the plan's
// inputs, which no output may replace.
void plan_state_inputs(OutputPlan& plan, const State& state);

// --lang en|ja.
Result<Language> parse_language(std::string_view v);

// Flags several commands share, each said once.
// --png FILE, --svg FILE, --csv FILE: the figure's files.
std::vector<Flag> figure_file_flags(ExportRequest& request);
// figure_file_flags, then a check in their place that one of them was given, refused with
// `nothing` ("nothing to write: give --png FILE, …") when none was.
void add_figure_outputs(std::vector<Flag>& flags, ExportRequest& request, std::string nothing);
// --scale N: the PNG's pixels per point, 1 to 8.
Flag scale_flag(float& into);
// --lang en|ja: the tour's language.
Flag language_flag(Language& into);
// --step N: a step of the tour, 1 to its last; kept 0-based.
Flag tour_step_flag(int& into);

}  // namespace poslab

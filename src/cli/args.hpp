#pragma once
// What every command of the command line shares: its two kinds of failure, said one way (a usage
// error names the problem and points to --help, exit 2; a runtime error is "poslab: error: …",
// exit 1), and the walk over its arguments (--name value or --name=value, the state options and
// --session read the same way by every command).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/output_plan.hpp"
#include "base/result.hpp"
#include "core/state.hpp"
#include "core/tour/tour_text.hpp"

namespace poslab {

inline constexpr int kUsageError = 2;
inline constexpr int kRuntimeError = 1;

// Prints the message and returns the exit code to end with.
int usage_error(const std::string& message);
int runtime_error(const std::string& message);

// One option a command takes, declared once: its name, whether it takes a value, and what its
// value does (checked and kept by `apply`; an error it returns is the user's, a usage error).
struct Flag {
  Flag(std::string_view name_, std::function<Status(std::string_view)> apply_, bool takes_value_ = true,
       bool repeated_ = false, std::string required_ = {})
      : name(name_), apply(std::move(apply_)), takes_value(takes_value_), repeated(repeated_), required(std::move(required_)) {}

  std::string_view name;
  std::function<Status(std::string_view value)> apply;  // a switch gets ""
  bool takes_value = true;
  bool repeated = false;  // every value is applied (--sentence A --sentence B); else the last one
  std::string required;   // non-empty: the flag must be given, and this is the message when it is not
};

// The message for an argument that is neither a declared flag nor a state option.
using UnknownOption = std::function<std::string(std::string_view name)>;

// When the values are checked.
enum class ParseOrder {
  AsGiven,    // each value as the walk reaches it (state options refine one another in order)
  NamesFirst, // every name first (an unknown option is reported before any bad value), then the
              // values in the order the flags are declared
};

struct ArgParser {
  std::vector<std::string_view> args;
  std::size_t i = 0;

  bool done() const { return i >= args.size(); }
  std::string_view next() { return args[i++]; }
  // The value of option `name`, from "--name=value" or the next argument.
  Result<std::string_view> value_of(std::string_view name, std::string_view inline_value, bool has_inline);

  // Walks every remaining argument: a state option or --session into *state (when state is not
  // null), a declared flag to its apply; anything else ends the walk with unknown(name).
  Status parse(const std::vector<Flag>& flags, State* state, const UnknownOption& unknown,
               ParseOrder order = ParseOrder::AsGiven);

  // The declared flags' values alone, on a copy of the walk: state options, --session and
  // unknown arguments are stepped over, errors ignored, nothing downloaded. For checks that must
  // come before parse() does anything slow (a command's outputs before a --model ORG/NAME is
  // fetched).
  void peek(const std::vector<Flag>& flags) const;

  // parse()'s error as the command ends with it: a file an option reads (--session, --model's
  // config.json, --model-config) that is broken or lies is a bad file (exit 1); anything else is
  // a bad flag or value (exit 2).
  int fail(const Status& s) const;
  bool file_failed = false;
};

// Not an option but a check among them, made in its place in the declared order once the flags
// before it are applied (ParseOrder::NamesFirst: "nothing to write" before a bad --task).
Flag checkpoint(std::function<Status()> check);

// Flags that keep their value: as text, or as a whole number within [lo, hi] (the message names
// the range).
Flag text_flag(std::string_view name, std::string& into);
Flag text_flag(std::string_view name, std::optional<std::string>& into);  // nullopt: not given
Flag integer_flag(std::string_view name, long long lo, long long hi, int& into);

// Checks a command's outputs before its work starts (OutputPlan::prepare): 0 when they are fine,
// else the exit code after the message (2: outputs naming one file or an input; 1: unwritable).
int prepare_outputs(OutputPlan& plan);

// Whether the command line holds option `name` ("--name value" or "--name=value").
bool flag_given(const ArgParser& p, std::string_view name);

// A folder the command reads (a model folder) as the plan's input, with the files in it that a
// model folder's reader opens (config.json, tokenizer files, *.safetensors): an output may sit
// beside them (runs/rope/eval.csv), never replace one.
void plan_folder_input(OutputPlan& plan, const std::string& flag, const std::filesystem::path& folder);

// The files the state reads (--embeddings or --model, --vocab, --learned-file) as the plan's
// inputs, which no output may replace.
void plan_state_inputs(OutputPlan& plan, const State& state);

// A flag's value that indexes something only the loaded input knows the size of (a token of the
// sentence, a head, a layer): within [0, count), or a usage error naming the valid range.
Status check_index(std::string_view flag, long long value, long long count, std::string_view what);

// --lang en|ja.
Result<Language> parse_language(std::string_view v);

}  // namespace poslab

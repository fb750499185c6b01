#pragma once
// The walk over a command's arguments (--name value or --name=value), with the state options and
// --session read the same way by every front end that takes options as text: the command line's
// commands (cli/args.hpp adds their exit codes) and the Python module's keywords (src/python).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "core/state.hpp"

namespace poslab {

// One option a command takes, declared once: its name, the placeholder of its value and its help
// (what the command line's help prints), and what its value does (checked and kept by `apply`; an
// error it returns is the user's, a usage error).
struct Flag {
  Flag(std::string_view name_, std::string_view value_, std::string help_, std::function<Status(std::string_view)> apply_,
       bool repeated_ = false)
      : name(name_), value(value_), help(std::move(help_)), apply(std::move(apply_)), repeated(repeated_) {}

  std::string_view name;
  std::string_view value;  // the value's placeholder ("FILE", "N", "copy|recall|reverse"); empty: a switch, which takes none
  std::string help;        // one line: what it does
  std::function<Status(std::string_view value)> apply;  // a switch gets ""
  bool repeated = false;  // every value is applied (--sentence A --sentence B); else the last one
  // Set: the flag must be given, and this is the message when it is not (see needed()).
  std::function<std::string()> required;

  bool takes_value() const { return !value.empty(); }
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

  // Whether parse()'s error is a file's that an option reads (--session, --model's config.json,
  // --model-config) that is broken or lies, rather than a bad flag or value.
  bool file_failed = false;
};

// Not an option but a check among them, made in its place in the declared order once the flags
// before it are applied (ParseOrder::NamesFirst: "nothing to write" before a bad --task). It has no
// name, so no argument reaches it and no help lists it.
Flag checkpoint(std::function<Status()> check);

// `flag`, which must be given; `message` says so when it is not. A function for a message that
// names what was given before it ("--animate base needs --from A and --to B").
Flag needed(Flag flag, std::string message);
Flag needed(Flag flag, std::function<std::string()> message);

// Flags that keep their value: as text, or as a whole number within [lo, hi] (the message names
// the range, and so does the help: " (lo to hi)" is added to `help`).
Flag text_flag(std::string_view name, std::string_view value, std::string help, std::string& into);
Flag text_flag(std::string_view name, std::string_view value, std::string help,
               std::optional<std::string>& into);  // nullopt: not given
Flag integer_flag(std::string_view name, std::string_view value, std::string help, long long lo, long long hi, int& into);

// Whether the command line holds option `name` ("--name value" or "--name=value").
bool flag_given(const ArgParser& p, std::string_view name);

// A flag's value that indexes something only the loaded input knows the size of (a token of the
// sentence, a head, a layer): within [0, count), or an error naming the valid range.
Status check_index(std::string_view flag, long long value, long long count, std::string_view what);

}  // namespace poslab

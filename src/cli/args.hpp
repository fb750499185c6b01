#pragma once
// What every command of the command line shares: its two kinds of failure, said one way (a usage
// error names the problem and points to --help, exit 2; a runtime error is "poslab: error: …",
// exit 1), and the walk over its arguments (--name value or --name=value, the state options and
// --session read the same way by every command).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "core/state.hpp"
#include "core/tour/tour_text.hpp"

namespace poslab {

inline constexpr int kUsageError = 2;
inline constexpr int kRuntimeError = 1;

// Prints the message and returns the exit code to end with.
int usage_error(const std::string& message);
int runtime_error(const std::string& message);

struct ArgParser {
  std::vector<std::string_view> args;
  std::size_t i = 0;

  bool done() const { return i >= args.size(); }
  std::string_view next() { return args[i++]; }
  // The value of option `name`, from "--name=value" or the next argument.
  Result<std::string_view> value_of(std::string_view name, std::string_view inline_value, bool has_inline);
};

// An argument split at its first '=' when it is "--name=value".
struct ParsedOption {
  std::string_view name, inline_value;
  bool has_inline = false;
};
ParsedOption split_option(std::string_view arg);

// Applies `opt` if it is a state option or --session (FILE replaces the whole state with the
// file's; options after it refine it); nullopt when it is neither.
std::optional<Status> try_state_option(State& state, ArgParser& p, const ParsedOption& opt);

// --lang en|ja.
Result<Language> parse_language(std::string_view v);

}  // namespace poslab

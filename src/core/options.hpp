#pragma once
// The state options shared by the GUI's command line and `poslab export`: one table, so that
// every choice the GUI offers is reachable from the command line with the same name.
#include <functional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "core/state.hpp"

namespace poslab {

struct StateOption {
  std::string_view name;   // e.g. "--heads"
  std::string_view value;  // placeholder shown in help, empty for a flag
  std::string_view help;
  Status (*apply)(State& state, std::string_view value);
};

const std::vector<StateOption>& state_options();
const StateOption* find_state_option(std::string_view name);

// What the state options given ask for, checked after all are read, whatever their order:
//  - an option that acts on a model folder's own forward pass only (--window, --local-base,
//    --rope-factors, --alibi-scale, --position-shift, --stack, --target) without a model folder;
//  - --no-positions with an option that tunes the positions it turns off (--base, --rope-scaling, …).
// Each is an error naming the option and what it needs; given options only (a session's values
// are the session's).
Status check_given_state_options(const std::function<bool(std::string_view)>& given, const State& state);

// Whether the state's embeddings are a model folder (--model DIR, or a folder given otherwise).
bool has_model_folder(const State& state);

// One help line per state option.
std::string state_options_help();

// Parsers shared with other command-line code; errors say what was expected.
Result<double> parse_number(std::string_view text, std::string_view what);
Result<long long> parse_integer(std::string_view text, std::string_view what, long long lo, long long hi);
// Two whole numbers from lo to hi: "WxH" (separator 'x', either case: --size, --grid) or "X,Y"
// (separator ','); `example` ("1440x900") completes the message of a value without the separator.
Result<std::pair<int, int>> parse_pair(std::string_view text, std::string_view what, char separator, long long lo, long long hi,
                                       std::string_view example);

}  // namespace poslab

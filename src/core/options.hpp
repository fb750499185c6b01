#pragma once
// The state options shared by the GUI's command line and `poslab export`: one table, so that
// every choice the GUI offers is reachable from the command line with the same name.
#include <string>
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

// One help line per state option.
std::string state_options_help();

// Parsers shared with other command-line code; errors say what was expected.
Result<double> parse_number(std::string_view text, std::string_view what);
Result<long long> parse_integer(std::string_view text, std::string_view what, long long lo, long long hi);

}  // namespace poslab

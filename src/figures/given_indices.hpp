#pragma once
// The index-like options given (--head, --token, --dims, --rope-pair, --patch…) against what the
// input holds, for every front end that reads options as text (the command line, the Python
// module's keywords).
#include <functional>
#include <string_view>

#include "base/result.hpp"
#include "core/attention/pipeline.hpp"
#include "core/state.hpp"

namespace poslab {

// Whether an option was given (an animation counts the swept one as given).
using GivenFlag = std::function<bool(std::string_view name)>;
// Past the end is an error naming the valid range, never quietly moved inside. A value only a
// session or the defaults set is left to the views, which keep it inside as the GUI does.
Status check_given_indices(const GivenFlag& given, const State& state, const Results& results);

}  // namespace poslab

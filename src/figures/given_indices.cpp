#include "figures/given_indices.hpp"

#include <cstddef>
#include <string>

#include "core/arguments.hpp"
#include "core/encodings/encodings.hpp"
#include "figures/rope2d.hpp"

namespace poslab {

namespace {

// The tokens of the sentence a view can pick: up to the last one that is not padding.
int real_tokens(const Results& r) {
  int count = 0;
  for (int t = 0; t < r.problem.queries(); ++t)
    if (!r.tokens[static_cast<std::size_t>(t)].padding) count = t + 1;
  return count;
}

}  // namespace

// The index-like options given on the command line, against what the input turned out to hold:
// past the end is the user's mistake, said with the valid range, never quietly moved inside it.
// (A value only a session or the defaults set is left to the views, as the GUI leaves it.)
Status check_given_indices(const GivenFlag& given, const State& state, const Results& r) {
  const ViewSettings& v = state.view;
  if (!v.mean_heads && v.head >= r.problem.heads)
    return check_index("--head", v.head, r.problem.heads, "heads");
  if (given("--token"))
    if (auto s = check_index("--token", v.trajectory_token, real_tokens(r), "tokens in the sentence"); !s) return s;
  if (given("--dims")) {
    const int d = r.problem.width();
    if (auto s = check_index("--dims", v.trajectory_dim_x, d, "dimensions"); !s) return s;
    if (auto s = check_index("--dims", v.trajectory_dim_y, d, "dimensions"); !s) return s;
  }
  if (given("--rope-pair")) {
    const auto pairs = static_cast<long long>(rope_thetas(kRope2dHeadDim, state.model.base).size());
    if (auto s = check_index("--rope-pair", v.rope_pair, pairs, "pairs in the rope2d view's head"); !s) return s;
  }
  for (const char* flag : {"--patch", "--patch-x"})
    if (given(flag))
      if (auto s = check_index(flag, v.patch_x, v.image_width, "patch columns"); !s) return s;
  for (const char* flag : {"--patch", "--patch-y"})
    if (given(flag))
      if (auto s = check_index(flag, v.patch_y, v.image_height, "patch rows"); !s) return s;
  return Ok{};
}

}  // namespace poslab

#pragma once
// The rope2d view: one pair of q and k as arrows on the plane, turned by mθᵢ and nθᵢ; the score
// (R_m q)·(R_n k) against n − m, the same curve for any m; and RoFormer's long-term decay.
#include <string>

#include "core/state.hpp"
#include "plot/draw.hpp"
#include "figures/fit.hpp"

namespace poslab {

class Workspace;

inline constexpr int kRope2dHeadDim = 64;  // the head width of the demonstration vectors

plot::Figure rope2d_figure(const State& state);
// The same drawn larger or smaller: the plane `side` points square (380 exported) and the two
// plots grown with it, as large as fits `room` (points).
plot::Figure rope2d_figure_to_fill(const State& state, plot::Point room, Overflow overflow = Overflow::Shrink);
std::string rope2d_csv(const State& state);

}  // namespace poslab

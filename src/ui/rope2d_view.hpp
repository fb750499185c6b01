#pragma once
// The rope2d view: one pair of q and k as arrows on the plane, turned by mθᵢ and nθᵢ; the score
// (R_m q)·(R_n k) against n − m, the same curve for any m; and RoFormer's long-term decay.
#include <string>

#include "core/state.hpp"
#include "plot/draw.hpp"

namespace poslab {

class Workspace;

inline constexpr int kRope2dHeadDim = 64;  // the head width of the demonstration vectors

plot::Figure rope2d_figure(const State& state);
std::string rope2d_csv(const State& state);

class Rope2dView {
 public:
  void draw(State& state, const plot::FontSet& fonts);

 private:
  plot::Figure figure_;
  plot::TextureCache textures_;
  State built_for_;
  bool built_ = false;
};

}  // namespace poslab

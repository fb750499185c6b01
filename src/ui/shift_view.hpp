#pragma once
// The shift view: for every pair of the sinusoid, how far PE(p+k) is from M_k·PE(p) (float
// rounding only), and the 2 × 2 matrices M_k themselves.
#include <string>

#include "core/state.hpp"
#include "plot/draw.hpp"

namespace poslab {

class Workspace;

inline constexpr int kShiftPositions = 512;

plot::Figure shift_figure(const State& state, int width, float plot_width, float plot_height);
std::string shift_csv(const State& state, int width);

class ShiftView {
 public:
  void draw(State& state, const Workspace& workspace, const plot::FontSet& fonts);

 private:
  plot::Figure figure_;
  plot::TextureCache textures_;
  State built_for_;
  int built_width_ = -1;
  float built_size_ = 0;
};

}  // namespace poslab

#pragma once
// The attention view: a token × token heatmap of one head's weights or scores, masks hatched.
#include "core/pipeline.hpp"
#include "core/state.hpp"
#include "plot/draw.hpp"
#include "plot/heatmap.hpp"

namespace poslab {

// The figure of the attention view for this state and these results; `side` is the length of
// the cell area in logical pixels. The GUI's export and `poslab export attention` both use
// kExportSide, so they produce the same pixels.
inline constexpr float kExportSide = 560.0f;
plot::HeatmapFigure attention_figure(const State& state, const Results& results, float side);

// One line that says what was computed: encoding, projections, masks, backend.
std::string describe_computation(const State& state, const Results& results);

class Workspace;

// The GUI panel: the heatmap filling the available space, with a hover tooltip.
class AttentionView {
 public:
  // Fills the available space less `reserve_below` pixels at the bottom.
  void draw(const State& state, const Workspace& workspace, const plot::FontSet& fonts, float reserve_below);

 private:
  plot::HeatmapFigure figure_;
  plot::TextureCache textures_;
  // What figure_ was built from.
  std::uint64_t built_version_ = 0;
  ViewSettings built_view_;
  float built_side_ = 0;
};

}  // namespace poslab

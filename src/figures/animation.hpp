#pragma once
// The frames of an animation: a sweep of one state option over a view, each frame drawn through
// the same path as `poslab export VIEW --PARAM v_k --png` (the same figure, rendered at the same
// scale), so that a frame is exactly that still. Used by `poslab export … --animate` and the
// GUI's Export animation dialog.
#include <memory>
#include <utility>

#include "core/animate/sweep.hpp"
#include "core/model/checkpoint.hpp"
#include "core/workspace.hpp"
#include "plot/figure_renderer.hpp"
#include "plot/render.hpp"
#include "figures/export.hpp"
#include "figures/model.hpp"

namespace poslab {

struct AnimationSource {
  ViewId view = ViewId::Attention;
  Workspace* workspace = nullptr;           // holds the embeddings; recomputed for each frame's state
  std::shared_ptr<const Checkpoint> model;  // for the views drawn from a model folder
  AttentionBackend* gpu = nullptr;          // the model's forward pass on the GPU (null: CPU)
};

// The figure of one frame's state, or why there is none (the same checks as the still).
Result<plot::Figure> animation_figure(const AnimationSource& source, const State& state);

// Frame k's figure; the error names the frame and its value.
Result<plot::Figure> animation_frame_figure(const AnimationSource& source, const State& start, const Sweep& sweep,
                                            int k);

// A frame's size in pixels at `scale`, as render_figure makes it.
std::pair<int, int> frame_size(const plot::Figure& figure, float scale);

// Frame k of the sweep, rendered at the renderer's scale (the pixels of render_figure, which
// `poslab export --png` uses); needs the renderer's OpenGL context current.
Result<plot::RgbaImage> render_animation_frame(const AnimationSource& source, const State& start, const Sweep& sweep,
                                               int k, plot::FigureRenderer& renderer);

}  // namespace poslab

#pragma once
// Many figures to pixels at one scale, for the frames of an animation: the ImGui context, its
// fonts baked at the scale and the OpenGL renderer's programs are made once and kept, where
// render_figure makes them for every figure. The pixels are render_figure's.
#include <memory>
#include <optional>

#include "base/result.hpp"
#include "gpu/gl.hpp"
#include "plot/draw.hpp"
#include "plot/render.hpp"

struct ImGuiContext;

namespace poslab::plot {

// The fonts of a renderer, baked at its scale. Baking is the slow part of making a renderer and
// needs no ImGui or OpenGL context, so any thread may do it (an export's worker) and hand the
// result to the thread that renders.
struct BakedFonts {
  ImFontAtlas atlas;
  FontSet fonts;
  float scale = 1.0f;
  static std::shared_ptr<BakedFonts> bake(float scale);
};

class FigureRenderer {
 public:
  // Needs a current OpenGL context, the same one for every render and for destruction.
  static Result<std::unique_ptr<FigureRenderer>> create(float scale);
  // The same with fonts baked beforehand (at the same scale), perhaps on another thread.
  static Result<std::unique_ptr<FigureRenderer>> create(std::shared_ptr<BakedFonts> baked);
  ~FigureRenderer();
  FigureRenderer(const FigureRenderer&) = delete;
  FigureRenderer& operator=(const FigureRenderer&) = delete;

  // Leaves the caller's current ImGui context as it was.
  Result<RgbaImage> render(const Figure& figure);
  float scale() const { return scale_; }

 private:
  explicit FigureRenderer(float scale) : scale_(scale) {}

  float scale_;
  ImGuiContext* context_ = nullptr;
  std::shared_ptr<BakedFonts> baked_;  // the context's (shared) font atlas
  FontSet fonts_;
  std::optional<gpu::OffscreenTarget> target_;  // kept while the frames keep their size
};

}  // namespace poslab::plot

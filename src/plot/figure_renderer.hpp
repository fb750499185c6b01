#pragma once
// Many figures to pixels at one scale, for the frames of an animation: the ImGui context, its
// fonts baked at the scale and the OpenGL renderer's programs are made once and kept, where
// render_figure makes them for every figure. The pixels are render_figure's.
#include <memory>
#include <optional>

#include "core/result.hpp"
#include "gpu/gl.hpp"
#include "plot/draw.hpp"
#include "plot/render.hpp"

struct ImGuiContext;

namespace poslab::plot {

class FigureRenderer {
 public:
  // Needs a current OpenGL context, the same one for every render and for destruction.
  static Result<std::unique_ptr<FigureRenderer>> create(float scale);
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
  FontSet fonts_;
  std::optional<gpu::OffscreenTarget> target_;  // kept while the frames keep their size
};

}  // namespace poslab::plot

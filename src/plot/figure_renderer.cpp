#include "plot/figure_renderer.hpp"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cmath>

namespace poslab::plot {

namespace {

// Makes `context` current until the end of the scope, then the one that was.
class CurrentImGuiContext {
 public:
  explicit CurrentImGuiContext(ImGuiContext* context) : previous_(ImGui::GetCurrentContext()) {
    ImGui::SetCurrentContext(context);
  }
  ~CurrentImGuiContext() { ImGui::SetCurrentContext(previous_); }
  CurrentImGuiContext(const CurrentImGuiContext&) = delete;
  CurrentImGuiContext& operator=(const CurrentImGuiContext&) = delete;

 private:
  ImGuiContext* previous_;
};

}  // namespace

std::shared_ptr<BakedFonts> BakedFonts::bake(float scale) {
  auto baked = std::make_shared<BakedFonts>();
  baked->scale = scale;
  baked->fonts = FontSet::add_to(baked->atlas, scale);  // as render_figure bakes them
  baked->atlas.Build();
  return baked;
}

Result<std::unique_ptr<FigureRenderer>> FigureRenderer::create(float scale) {
  if (!(scale > 0.0f && scale <= 8.0f)) return Error{"the scale must be between 1 and 8"};
  return create(BakedFonts::bake(scale));
}

Result<std::unique_ptr<FigureRenderer>> FigureRenderer::create(std::shared_ptr<BakedFonts> baked) {
  const float scale = baked->scale;
  if (!(scale > 0.0f && scale <= 8.0f)) return Error{"the scale must be between 1 and 8"};
  std::unique_ptr<FigureRenderer> r(new FigureRenderer(scale));
  ImGuiContext* previous = ImGui::GetCurrentContext();
  r->context_ = ImGui::CreateContext(&baked->atlas);  // makes it current when there was none
  CurrentImGuiContext current(r->context_);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.LogFilename = nullptr;
  r->fonts_ = baked->fonts;
  r->baked_ = std::move(baked);
  const bool started = ImGui_ImplOpenGL3_Init("#version 130");
  if (!started) {
    ImGui::DestroyContext(r->context_);
    r->context_ = nullptr;
    ImGui::SetCurrentContext(previous);
    return Error{"the ImGui OpenGL renderer could not start"};
  }
  return r;
}

FigureRenderer::~FigureRenderer() {
  if (!context_) return;
  ImGuiContext* previous = ImGui::GetCurrentContext();
  target_.reset();
  ImGui::SetCurrentContext(context_);
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext(context_);
  ImGui::SetCurrentContext(previous == context_ ? nullptr : previous);
}

Result<RgbaImage> FigureRenderer::render(const Figure& figure) {
  const int width = static_cast<int>(std::ceil(figure.width * scale_));
  const int height = static_cast<int>(std::ceil(figure.height * scale_));
  if (!target_ || target_->width() != width || target_->height() != height) {
    target_.reset();
    auto target = gpu::OffscreenTarget::create(width, height);
    if (!target) return Error{target.error()};
    target_.emplace(std::move(*target));
  }
  CurrentImGuiContext current(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
  io.DeltaTime = 1.0f / 60.0f;
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  TextureCache textures;
  draw_figure(ImGui::GetBackgroundDrawList(), figure, ImVec2(0, 0), scale_, fonts_, textures);
  ImGui::Render();

  target_->bind();
  glDisable(GL_SCISSOR_TEST);
  glClearColor(figure.background.r, figure.background.g, figure.background.b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  RgbaImage image{width, height, target_->read_rgba()};
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  // The figure is opaque, as render_figure makes it.
  for (std::size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = static_cast<char>(255);
  return image;
}

}  // namespace poslab::plot

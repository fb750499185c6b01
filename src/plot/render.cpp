#include "plot/render.hpp"

#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include <cmath>

#include "gpu/gl.hpp"
#include "plot/draw.hpp"

namespace poslab::plot {

namespace {

// Makes a fresh ImGui context current for its lifetime and restores the previous one after.
class ScopedImGuiContext {
 public:
  ScopedImGuiContext() : previous_(ImGui::GetCurrentContext()), context_(ImGui::CreateContext()) {
    ImGui::SetCurrentContext(context_);
  }
  ~ScopedImGuiContext() {
    ImGui::DestroyContext(context_);
    ImGui::SetCurrentContext(previous_);
  }
  ScopedImGuiContext(const ScopedImGuiContext&) = delete;
  ScopedImGuiContext& operator=(const ScopedImGuiContext&) = delete;

 private:
  ImGuiContext* previous_;
  ImGuiContext* context_;
};

}  // namespace

Result<RgbaImage> render_figure(const Figure& figure, float scale) {
  if (!(scale > 0.0f && scale <= 8.0f)) return Error{"the scale must be between 1 and 8"};
  const int width = static_cast<int>(std::ceil(figure.width * scale));
  const int height = static_cast<int>(std::ceil(figure.height * scale));
  auto target = gpu::OffscreenTarget::create(width, height);
  if (!target) return Error{target.error()};

  ScopedImGuiContext scoped;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.LogFilename = nullptr;
  const FontSet fonts = FontSet::add_to(*io.Fonts, scale);
  if (!ImGui_ImplOpenGL3_Init("#version 130")) return Error{"the ImGui OpenGL renderer could not start"};
  io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
  io.DeltaTime = 1.0f / 60.0f;
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  TextureCache textures;
  draw_figure(ImGui::GetBackgroundDrawList(), figure, ImVec2(0, 0), scale, fonts, textures);
  ImGui::Render();

  target->bind();
  glDisable(GL_SCISSOR_TEST);
  glClearColor(figure.background.r, figure.background.g, figure.background.b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  RgbaImage image{width, height, target->read_rgba()};
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  ImGui_ImplOpenGL3_Shutdown();
  // The figure is opaque: make every pixel so, whatever blending left in the alpha channel.
  for (std::size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = static_cast<char>(255);
  return image;
}

std::string encode_png(const RgbaImage& image) {
  std::string out;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  stbi_write_png_to_func(append, &out, image.width, image.height, 4, image.rgba.data(), image.width * 4);
  return out;
}

Result<RgbaImage> decode_png(std::string_view bytes) {
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()),
                                                static_cast<int>(bytes.size()), &w, &h, &channels, 4);
  if (!pixels) return Error{std::string("not a readable PNG: ") + stbi_failure_reason()};
  RgbaImage image{w, h, std::string(reinterpret_cast<const char*>(pixels), static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4)};
  stbi_image_free(pixels);
  return image;
}

}  // namespace poslab::plot

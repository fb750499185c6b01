#include "gpu/gl.hpp"

#include <cstring>
#include <vector>

#include "gpu/shaders.hpp"

namespace poslab::gpu {

Buffer::Buffer() {
  GLuint id = 0;
  glGenBuffers(1, &id);
  handle_ = GlHandle<BufferDeleter>(id);
}

void Buffer::reserve(std::size_t bytes) {
  if (bytes <= capacity_ && capacity_ > 0) return;
  const std::size_t size = bytes == 0 ? 4 : bytes;
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, handle_.id());
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(size), nullptr, GL_DYNAMIC_COPY);
  capacity_ = size;
}

void Buffer::upload(const void* data, std::size_t bytes) {
  reserve(bytes);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, handle_.id());
  if (bytes > 0) glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
}

void Buffer::download(void* data, std::size_t bytes) const {
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, handle_.id());
  if (bytes > 0) glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
}

void Buffer::bind_base(GLuint binding) const { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, handle_.id()); }

void Texture2D::upload_rgba(int width, int height, const unsigned char* pixels) {
  if (!handle_) {
    GLuint id = 0;
    glGenTextures(1, &id);
    handle_ = GlHandle<TextureDeleter>(id);
  }
  glBindTexture(GL_TEXTURE_2D, handle_.id());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  if (width == width_ && height == height_) {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  } else {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  }
  width_ = width;
  height_ = height;
}

void Texture2D::allocate(int width, int height) {
  if (width == width_ && height == height_ && handle_) return;
  GLuint id = 0;
  glGenTextures(1, &id);
  handle_ = GlHandle<TextureDeleter>(id);  // immutable storage cannot be resized: a new name
  glBindTexture(GL_TEXTURE_2D, id);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, width, height);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  width_ = width;
  height_ = height;
}

Result<OffscreenTarget> OffscreenTarget::create(int width, int height) {
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  if (width <= 0 || height <= 0 || width > max_size || height > max_size)
    return Error{"image size " + std::to_string(width) + "×" + std::to_string(height) +
                 " is beyond this GPU's limit of " + std::to_string(max_size)};
  OffscreenTarget t;
  GLuint tex = 0, fbo = 0;
  glGenTextures(1, &tex);
  t.color_ = GlHandle<TextureDeleter>(tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glGenFramebuffers(1, &fbo);
  t.fbo_ = GlHandle<FramebufferDeleter>(fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (status != GL_FRAMEBUFFER_COMPLETE) return Error{"offscreen framebuffer is incomplete"};
  t.width_ = width;
  t.height_ = height;
  return t;
}

void OffscreenTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_.id());
  glViewport(0, 0, width_, height_);
}

namespace {
// glReadPixels returns the bottom row first; images want the top row first.
std::string read_flipped(int width, int height) {
  const std::size_t row = static_cast<std::size_t>(width) * 4;
  std::string pixels(row * static_cast<std::size_t>(height), '\0');
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  std::string flipped(pixels.size(), '\0');
  for (int y = 0; y < height; ++y)
    std::memcpy(flipped.data() + static_cast<std::size_t>(y) * row,
                pixels.data() + static_cast<std::size_t>(height - 1 - y) * row, row);
  return flipped;
}
}  // namespace

std::string OffscreenTarget::read_rgba() const {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_.id());
  auto pixels = read_flipped(width_, height_);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  return pixels;
}

std::string read_window_rgba(int width, int height) {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  return read_flipped(width, height);
}

Result<ComputeProgram> ComputeProgram::create(std::string_view shader_name) {
  const std::string source = shader_source(shader_name);
  if (source.empty()) return Error{"shader " + std::string(shader_name) + " is not in the binary"};
  return from_source(shader_name, source);
}

Result<ComputeProgram> ComputeProgram::from_source(std::string_view shader_name, const std::string& source) {
  const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  const char* text = source.data();
  const GLint length = static_cast<GLint>(source.size());
  glShaderSource(shader, 1, &text, &length);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  auto log_of = [](GLuint object, bool is_program) {
    GLint len = 0;
    if (is_program) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &len);
    else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<std::size_t>(len > 0 ? len : 1), '\0');
    if (is_program) glGetProgramInfoLog(object, len, nullptr, log.data());
    else glGetShaderInfoLog(object, len, nullptr, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log;
  };
  if (!ok) {
    std::string log = log_of(shader, false);
    glDeleteShader(shader);
    return Error{"shader " + std::string(shader_name) + " failed to compile:\n" + log};
  }
  ComputeProgram p;
  p.handle_ = GlHandle<ProgramDeleter>(glCreateProgram());
  glAttachShader(p.handle_.id(), shader);
  glLinkProgram(p.handle_.id());
  glDeleteShader(shader);
  glGetProgramiv(p.handle_.id(), GL_LINK_STATUS, &ok);
  if (!ok) return Error{"shader " + std::string(shader_name) + " failed to link:\n" + log_of(p.handle_.id(), true)};
  return p;
}

void ComputeProgram::set(const char* name, int v) const { glUniform1i(glGetUniformLocation(handle_.id(), name), v); }
void ComputeProgram::set(const char* name, float v) const { glUniform1f(glGetUniformLocation(handle_.id(), name), v); }

std::string describe_context() {
  auto str = [](GLenum e) {
    const auto* s = reinterpret_cast<const char*>(glGetString(e));
    return std::string(s ? s : "?");
  };
  return str(GL_RENDERER) + " — OpenGL " + str(GL_VERSION);
}

bool context_at_least(int major, int minor) {
  GLint ma = 0, mi = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &ma);
  glGetIntegerv(GL_MINOR_VERSION, &mi);
  return ma > major || (ma == major && mi >= minor);
}

}  // namespace poslab::gpu

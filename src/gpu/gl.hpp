#pragma once
// RAII owners for the OpenGL objects PosLab uses. No raw glGen* outside src/gpu.
#include <glad/gl.h>

#include <string>
#include <string_view>
#include <utility>

#include "base/result.hpp"

namespace poslab::gpu {

// Move-only handle that deletes its GL name with `Deleter` when it goes away.
template <typename Deleter>
class GlHandle {
 public:
  GlHandle() = default;
  explicit GlHandle(GLuint id) : id_(id) {}
  GlHandle(GlHandle&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  GlHandle& operator=(GlHandle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, 0);
    }
    return *this;
  }
  GlHandle(const GlHandle&) = delete;
  GlHandle& operator=(const GlHandle&) = delete;
  ~GlHandle() { reset(); }
  GLuint id() const { return id_; }
  explicit operator bool() const { return id_ != 0; }
  void reset() {
    if (id_ != 0) Deleter{}(id_);
    id_ = 0;
  }

 private:
  GLuint id_ = 0;
};

struct BufferDeleter { void operator()(GLuint id) const { glDeleteBuffers(1, &id); } };
struct TextureDeleter { void operator()(GLuint id) const { glDeleteTextures(1, &id); } };
struct FramebufferDeleter { void operator()(GLuint id) const { glDeleteFramebuffers(1, &id); } };
struct RenderbufferDeleter { void operator()(GLuint id) const { glDeleteRenderbuffers(1, &id); } };
struct ProgramDeleter { void operator()(GLuint id) const { glDeleteProgram(id); } };
struct QueryDeleter { void operator()(GLuint id) const { glDeleteQueries(1, &id); } };

// A shader storage buffer of bytes.
class Buffer {
 public:
  Buffer();
  // Grows (never shrinks) the storage to at least `bytes`; contents are undefined after growth.
  void reserve(std::size_t bytes);
  void upload(const void* data, std::size_t bytes);
  void download(void* data, std::size_t bytes) const;
  void bind_base(GLuint binding) const;
  GLuint id() const { return handle_.id(); }
  std::size_t capacity() const { return capacity_; }

 private:
  GlHandle<BufferDeleter> handle_;
  std::size_t capacity_ = 0;
};

// An RGBA8 2-D texture, nearest filtering (heatmap cells stay sharp).
class Texture2D {
 public:
  Texture2D() = default;
  void upload_rgba(int width, int height, const unsigned char* pixels);
  // Storage for width × height RGBA8 texels, contents undefined (for shaders to write).
  void allocate(int width, int height);
  GLuint id() const { return handle_.id(); }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  GlHandle<TextureDeleter> handle_;
  int width_ = 0, height_ = 0;
};

// A framebuffer with an RGBA8 colour texture, for rendering plots offscreen.
class OffscreenTarget {
 public:
  static Result<OffscreenTarget> create(int width, int height);
  void bind() const;
  // Reads the pixels top row first, RGBA8.
  std::string read_rgba() const;
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  GlHandle<FramebufferDeleter> fbo_;
  GlHandle<TextureDeleter> color_;
  int width_ = 0, height_ = 0;
};

// A compute program built from a shader embedded in the binary.
class ComputeProgram {
 public:
  static Result<ComputeProgram> create(std::string_view shader_name);
  // From source text given directly (benchmarks keep shaders of their own).
  static Result<ComputeProgram> from_source(std::string_view name, const std::string& source);
  void use() const { glUseProgram(handle_.id()); }
  void set(const char* name, int v) const;
  void set(const char* name, float v) const;
  GLuint id() const { return handle_.id(); }

 private:
  GlHandle<ProgramDeleter> handle_;
};

// Reads the default framebuffer (the window) top row first, RGBA8.
std::string read_window_rgba(int width, int height);

// "GL_VENDOR / GL_RENDERER / GL_VERSION" of the current context.
std::string describe_context();

// True when the current context is at least `major.minor`.
bool context_at_least(int major, int minor);

}  // namespace poslab::gpu

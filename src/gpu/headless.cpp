#include "gpu/headless.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstring>
#include <vector>

#include "gpu/gl.hpp"

namespace poslab::gpu {

namespace {

template <typename F>
F egl_proc(const char* name) {
  return reinterpret_cast<F>(eglGetProcAddress(name));
}

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

// Candidate displays, best first: surfaceless (Mesa), then each EGL device (NVIDIA), then default.
std::vector<EGLDisplay> candidate_displays() {
  std::vector<EGLDisplay> displays;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto get_platform_display = egl_proc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
  if (get_platform_display && has_extension(client, "EGL_MESA_platform_surfaceless")) {
    EGLDisplay d = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (d != EGL_NO_DISPLAY) displays.push_back(d);
  }
  auto query_devices = egl_proc<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
  if (get_platform_display && query_devices && has_extension(client, "EGL_EXT_platform_device")) {
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    if (query_devices(16, devices, &count))
      for (EGLint i = 0; i < count; ++i) {
        EGLDisplay d = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        if (d != EGL_NO_DISPLAY) displays.push_back(d);
      }
  }
  EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (d != EGL_NO_DISPLAY) displays.push_back(d);
  return displays;
}

std::string egl_error_text() {
  char buf[32];
  std::snprintf(buf, sizeof buf, "EGL error 0x%04x", static_cast<unsigned>(eglGetError()));
  return buf;
}

}  // namespace

Result<std::unique_ptr<HeadlessContext>> HeadlessContext::create() {
  std::string failures;
  for (EGLDisplay display : candidate_displays()) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display, &major, &minor)) {
      failures += " eglInitialize: " + egl_error_text() + ";";
      continue;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
      failures += " no desktop OpenGL on this EGL display;";
      continue;
    }
    const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint configs = 0;
    if (!eglChooseConfig(display, config_attribs, &config, 1, &configs) || configs == 0) config = nullptr;
    // 4.3 for compute shaders; else 3.3, enough to render plots while attention runs on the CPU.
    EGLContext context = EGL_NO_CONTEXT;
    for (EGLint minor_version : {3, -1}) {
      const EGLint major_version = minor_version < 0 ? 3 : 4;
      const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, major_version, EGL_CONTEXT_MINOR_VERSION,
                                        minor_version < 0 ? 3 : minor_version, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                        EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
      context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
      if (context != EGL_NO_CONTEXT) break;
    }
    if (context == EGL_NO_CONTEXT) {
      failures += " no OpenGL 3.3 or 4.3 core context (" + egl_error_text() + ");";
      continue;
    }
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
      failures += " eglMakeCurrent: " + egl_error_text() + ";";
      eglDestroyContext(display, context);
      continue;
    }
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
      failures += " the GL loader failed;";
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(display, context);
      continue;
    }
    std::unique_ptr<HeadlessContext> result(new HeadlessContext());
    result->display_ = display;
    result->context_ = context;
    result->description_ = describe_context();
    return result;
  }
  return Error{"no headless OpenGL context could be created:" + failures};
}

HeadlessContext::~HeadlessContext() {
  auto display = static_cast<EGLDisplay>(display_);
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display, static_cast<EGLContext>(context_));
}

void HeadlessContext::release() {
  eglMakeCurrent(static_cast<EGLDisplay>(display_), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

void HeadlessContext::make_current() {
  eglMakeCurrent(static_cast<EGLDisplay>(display_), EGL_NO_SURFACE, EGL_NO_SURFACE,
                 static_cast<EGLContext>(context_));
}

}  // namespace poslab::gpu

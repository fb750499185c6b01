#pragma once
// An OpenGL core context with no window and no X server, through EGL: the surfaceless platform
// on Mesa, the device platform on NVIDIA. 4.3 when the driver has it (compute shaders), else
// 3.3 (plots only). Used by tests, `poslab export` and benchmarks.
#include <memory>
#include <string>

#include "base/result.hpp"

namespace poslab::gpu {

class HeadlessContext {
 public:
  static Result<std::unique_ptr<HeadlessContext>> create();
  ~HeadlessContext();
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;
  void make_current();
  // No context current on the calling thread, so that another thread may make this one current.
  void release();
  const std::string& description() const { return description_; }

 private:
  HeadlessContext() = default;
  void* display_ = nullptr;
  void* context_ = nullptr;
  std::string description_;
};

}  // namespace poslab::gpu

#include "core/model_resolver.hpp"

#include <mutex>
#include <string>
#include <utility>

namespace poslab {

namespace {

std::mutex& resolver_mutex() {
  static std::mutex m;
  return m;
}

ModelResolver& installed() {
  static ModelResolver r;
  return r;
}

}  // namespace

void install_model_resolver(ModelResolver resolver) {
  std::lock_guard lock(resolver_mutex());
  installed() = std::move(resolver);
}

Result<std::filesystem::path> resolve_model_argument(std::string_view argument) {
  ModelResolver resolver;
  {
    std::lock_guard lock(resolver_mutex());  // a copy: it is called without the lock (it may download)
    resolver = installed();
  }
  if (!resolver) return std::filesystem::path(std::string(argument));
  return resolver(argument);
}

}  // namespace poslab

#include "gpu/shaders.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace poslab::gpu {

std::string shader_source(std::string_view name) {
  if (const char* dir = std::getenv("POSLAB_SHADER_DIR"); dir && *dir) {
    const std::filesystem::path path = std::filesystem::path(dir) / name;
    if (std::ifstream in(path); in) {
      std::ostringstream text;
      text << in.rdbuf();
      return text.str();
    }
  }
  return std::string(embedded_file(name));
}

}  // namespace poslab::gpu

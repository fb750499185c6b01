#include "figures/assets.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

// The data folder relative to the installed binary (set by the install rules: bin → share/poslab).
#ifndef POSLAB_DATA_FROM_BIN
#define POSLAB_DATA_FROM_BIN "../share/poslab"
#endif

namespace poslab {

std::string asset_path(const std::string& name) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("POSLAB_ASSETS"); env && *env) candidates.push_back(fs::path(env) / name);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path() / "assets" / name);                                   // a build folder
    candidates.push_back((exe.parent_path() / POSLAB_DATA_FROM_BIN / name).lexically_normal());  // an installed prefix
  }
  candidates.push_back(fs::path(POSLAB_SOURCE_ASSETS) / name);
  for (const auto& c : candidates)
    if (fs::exists(c, ec)) return c.string();
  return candidates.back().string();
}

}  // namespace poslab

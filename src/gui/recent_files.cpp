#include "gui/recent_files.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "base/files.hpp"
#include "gui/gui.hpp"

namespace poslab {

namespace {
std::filesystem::path recent_path() { return std::filesystem::path(last_session_path()).parent_path() / "recent.txt"; }
}  // namespace

void RecentFiles::load() {
  paths_.clear();
  auto text = read_whole_file(recent_path(), kJsonConfigFile);
  if (!text) return;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line) && paths_.size() < kMax;)
    if (!line.empty()) paths_.push_back(line);
}

void RecentFiles::add(const std::string& path) {
  paths_.erase(std::remove(paths_.begin(), paths_.end(), path), paths_.end());
  paths_.insert(paths_.begin(), path);
  if (paths_.size() > kMax) paths_.resize(kMax);
  std::string text;
  for (const auto& p : paths_) text += p + "\n";
  std::error_code ec;
  std::filesystem::create_directories(recent_path().parent_path(), ec);
  (void)write_file_atomic(recent_path(), text);  // a read-only config folder only loses the list
}

}  // namespace poslab

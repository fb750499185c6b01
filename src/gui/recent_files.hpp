#pragma once
// The embeddings files and model folders opened lately, newest first, kept beside the last
// session ($XDG_CONFIG_HOME/poslab/recent.txt) so they survive a restart.
#include <string>
#include <vector>

namespace poslab {

class RecentFiles {
 public:
  static constexpr std::size_t kMax = 8;
  // Reads the list (a missing or unreadable file is an empty list).
  void load();
  // Puts `path` first, drops its older entry and the oldest beyond kMax, and saves the list.
  void add(const std::string& path);
  const std::vector<std::string>& paths() const { return paths_; }

 private:
  std::vector<std::string> paths_;
};

}  // namespace poslab

#pragma once
// The one temporary folder every C++ test makes: empty when made, removed with all it holds when it
// goes out of scope. Its name holds the process id and a count of the folders this process made,
// so that ctest's parallel jobs (a process per test) and two folders of one test never share one.
#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace poslab::test_support {

class TempFolder {
 public:
  // `label` says whose folder it is to someone looking at the temporary directory meanwhile.
  explicit TempFolder(const std::string& label = "test")
      : path_(std::filesystem::temp_directory_path() /
              ("poslab-" + label + "-" + std::to_string(::getpid()) + "-" + std::to_string(next_number()))) {
    std::filesystem::remove_all(path_);  // a folder left by a killed process that had this id
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;  // a destructor must not throw: a folder it cannot remove stays behind
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }
  // Wherever a path is taken (fs::exists(dir), a function's argument).
  operator const std::filesystem::path&() const { return path_; }
  std::string string() const { return path_.string(); }

 private:
  static int next_number() {
    static std::atomic<int> count{0};
    return count++;
  }
  std::filesystem::path path_;
};

}  // namespace poslab::test_support

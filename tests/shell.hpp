#pragma once
// A shell command run the way a user's terminal runs it (stdout and stderr together, its exit
// code), and a file's bytes: what every test that runs the poslab binary needs, without the
// figure code (tests/poslab_process.hpp adds the poslab binary and PNG reading on top).
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace poslab::test_support {

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `command` through /bin/sh, so it may quote, set variables and change folders.
inline RunResult run_shell(const std::string& command) {
  RunResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string read_whole_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace poslab::test_support

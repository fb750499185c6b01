#pragma once
// Runs the poslab binary the way a user's shell does, and reads what it wrote, for the command-line tests.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "plot/render.hpp"

namespace poslab::test_support {

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `poslab ARGS` through /bin/sh (so ARGS may quote), with `env` (VAR=value …) before it.
inline RunResult run_poslab(const std::string& args, const std::string& env = "") {
  const std::string command = env + " " + std::string(POSLAB_BINARY) + " " + args + " 2>&1";
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

// A PNG file's pixels; a failed test (and no pixels) when it is not one.
inline plot::RgbaImage read_png_file(const std::filesystem::path& p) {
  auto img = plot::decode_png(read_whole_file(p));
  EXPECT_TRUE(img.ok()) << p << ": " << (img.ok() ? "" : img.error());
  return img.ok() ? *img : plot::RgbaImage{};
}

}  // namespace poslab::test_support

#pragma once
// Runs the poslab binary the way a user's shell does, and reads what it wrote, for the command-line tests.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "plot/render.hpp"
#include "shell.hpp"

namespace poslab::test_support {

// `poslab ARGS` through /bin/sh (so ARGS may quote), with `env` (VAR=value …) before it.
inline RunResult run_poslab(const std::string& args, const std::string& env = "") {
  return run_shell(env + " " + std::string(POSLAB_BINARY) + " " + args + " 2>&1");
}

// A PNG file's pixels; a failed test (and no pixels) when it is not one.
inline plot::RgbaImage read_png_file(const std::filesystem::path& p) {
  auto img = plot::decode_png(read_whole_file(p));
  EXPECT_TRUE(img.ok()) << p << ": " << (img.ok() ? "" : img.error());
  return img.ok() ? *img : plot::RgbaImage{};
}

}  // namespace poslab::test_support

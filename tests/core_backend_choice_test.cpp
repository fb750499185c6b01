// --backend auto|gpu|cpu: which path computes the attention, and the words that say why.
#include <gtest/gtest.h>

#include "core/attention/backend_choice.hpp"
#include "core/options.hpp"
#include "core/session.hpp"

using namespace poslab;

namespace {
constexpr const char* kLlvmpipe = "llvmpipe (LLVM 15.0.6, 256 bits) — OpenGL 4.5 (Core Profile) Mesa 22.3.6";
constexpr const char* kNvidia = "NVIDIA H100 80GB HBM3/PCIe/SSE2 — OpenGL 4.6.0 NVIDIA 550.54.15";
}  // namespace

TEST(BackendChoice, SoftwareRenderersAreRecognised) {
  EXPECT_TRUE(is_software_renderer(kLlvmpipe));
  EXPECT_TRUE(is_software_renderer("Gallium 0.4 on softpipe"));
  EXPECT_TRUE(is_software_renderer("Software Rasterizer (SWRAST)"));
  EXPECT_FALSE(is_software_renderer(kNvidia));
  EXPECT_FALSE(is_software_renderer("AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.6, DRM 3.54)"));
  EXPECT_FALSE(is_software_renderer("Mesa Intel(R) UHD Graphics 620 (KBL GT2)"));
  EXPECT_FALSE(is_software_renderer(""));
}

TEST(BackendChoice, AutoTakesTheCpuOnASoftwareRendererAndSaysWhy) {
  const BackendChoice c = choose_backend(Backend::Auto, kLlvmpipe, true);
  EXPECT_EQ(c.backend, Backend::Cpu);
  EXPECT_NE(c.reason.find("auto"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("llvmpipe (LLVM 15.0.6, 256 bits)"), std::string::npos) << c.reason;
  EXPECT_EQ(c.reason.find("Mesa 22.3.6"), std::string::npos) << c.reason;  // the renderer, not the version
  EXPECT_NE(c.reason.find("software renderer"), std::string::npos) << c.reason;
  EXPECT_EQ(c.brief, "auto: llvmpipe is a software renderer");  // the info panel's words
  EXPECT_FALSE(wants_gpu(Backend::Auto, kLlvmpipe));
}

TEST(BackendChoice, AutoTakesTheGpuOnHardware) {
  const BackendChoice c = choose_backend(Backend::Auto, kNvidia, true);
  EXPECT_EQ(c.backend, Backend::Gpu);
  EXPECT_NE(c.reason.find("NVIDIA H100"), std::string::npos) << c.reason;
  EXPECT_EQ(c.brief, "auto: a hardware GPU");
  EXPECT_TRUE(wants_gpu(Backend::Auto, kNvidia));
  // Hardware whose compute path failed, or no context at all: the CPU, with the driver's words.
  const BackendChoice failed = choose_backend(Backend::Auto, kNvidia, false, "OpenGL 4.3 is needed");
  EXPECT_EQ(failed.backend, Backend::Cpu);
  EXPECT_NE(failed.reason.find("OpenGL 4.3 is needed"), std::string::npos) << failed.reason;
  EXPECT_EQ(choose_backend(Backend::Auto, "", false).backend, Backend::Cpu);
  EXPECT_FALSE(wants_gpu(Backend::Auto, ""));
}

TEST(BackendChoice, GpuAndCpuAreForced) {
  const BackendChoice forced = choose_backend(Backend::Gpu, kLlvmpipe, true);
  EXPECT_EQ(forced.backend, Backend::Gpu);
  EXPECT_NE(forced.reason.find("--backend gpu"), std::string::npos) << forced.reason;
  EXPECT_NE(forced.reason.find("CPU path is faster"), std::string::npos) << forced.reason;
  EXPECT_TRUE(wants_gpu(Backend::Gpu, kLlvmpipe));
  EXPECT_TRUE(wants_gpu(Backend::Gpu, ""));
  EXPECT_EQ(choose_backend(Backend::Gpu, kNvidia, false, "no compute").backend, Backend::Cpu);
  EXPECT_EQ(choose_backend(Backend::Cpu, kNvidia, true).backend, Backend::Cpu);
  EXPECT_FALSE(wants_gpu(Backend::Cpu, kNvidia));
}

TEST(BackendChoice, AutoIsTheDefaultAndEveryNameParses) {
  EXPECT_EQ(State{}.backend, Backend::Auto);
  const StateOption* option = find_state_option("--backend");
  ASSERT_NE(option, nullptr);
  for (Backend b : {Backend::Gpu, Backend::Cpu, Backend::Auto}) {
    State s;
    ASSERT_TRUE(option->apply(s, to_string(b)).ok()) << to_string(b);
    EXPECT_EQ(s.backend, b);
    auto loaded = parse_session(session_json(s), "test");  // sessions keep it
    ASSERT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error());
    EXPECT_EQ(loaded->state.backend, b);
  }
  State s;
  const Status bad = option->apply(s, "tpu");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("auto|gpu|cpu"), std::string::npos) << bad.error();
}

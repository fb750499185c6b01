// The compute shaders run for real through EGL (no display) and must match the Eigen reference.
// These tests never skip: no OpenGL 4.3 context is a failure.
#include <gtest/gtest.h>

#include "core/random.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"

using namespace poslab;

namespace {

struct GpuFixture : ::testing::Test {
  static void SetUpTestSuite() {
    auto ctx = gpu::HeadlessContext::create();
    ASSERT_TRUE(ctx.ok()) << ctx.error();
    context = std::move(*ctx);
    auto b = gpu::GpuBackend::create();
    ASSERT_TRUE(b.ok()) << b.error();
    backend = std::move(*b);
  }
  static void TearDownTestSuite() {
    backend.reset();
    context.reset();
  }
  static inline std::unique_ptr<gpu::HeadlessContext> context;
  static inline std::unique_ptr<gpu::GpuBackend> backend;
};

AttentionInput random_input(int T, int heads, int head_dim, bool causal, int padded, std::uint64_t seed) {
  AttentionInput in;
  const int d = heads * head_dim;
  in.Q = gaussian_matrix(T, d, 1.0, mix_seed(seed, 1));
  in.K = gaussian_matrix(T, d, 1.0, mix_seed(seed, 2));
  in.V = gaussian_matrix(T, d, 1.0, mix_seed(seed, 3));
  in.heads = heads;
  in.causal = causal;
  in.key_valid.assign(static_cast<std::size_t>(T), 1);
  for (int t = std::max(1, T - padded); t < T; ++t) in.key_valid[static_cast<std::size_t>(t)] = 0;
  return in;
}

// Compares every weight and every context value of the GPU with the CPU reference.
void expect_matches_cpu(gpu::GpuBackend& backend, const AttentionInput& in) {
  auto gpu_out = backend.run(in);
  ASSERT_TRUE(gpu_out.ok()) << gpu_out.error();
  const AttentionOutput cpu_out = attention_cpu(in);
  ASSERT_EQ(gpu_out->weights.size(), cpu_out.weights.size());
  EXPECT_LE(max_abs_difference(*gpu_out, cpu_out), 1e-4) << "T=" << in.tokens() << " heads=" << in.heads;
  // Masked cells: −inf scores and exactly zero weights on both paths.
  for (std::size_t h = 0; h < cpu_out.weights.size(); ++h)
    for (int i = 0; i < in.tokens(); ++i)
      for (int j = 0; j < in.tokens(); ++j)
        if (in.masked(i, j)) {
          ASSERT_EQ(gpu_out->weights[h](i, j), 0.0f);
          ASSERT_TRUE(std::isinf(gpu_out->scores[h](i, j)) && gpu_out->scores[h](i, j) < 0);
        }
}

}  // namespace

TEST_F(GpuFixture, GpuMatchesCpuSmall) {
  for (int T : {1, 2, 5, 16, 17, 33}) {
    expect_matches_cpu(*backend, random_input(T, 2, 16, false, 0, 10 + T));
    expect_matches_cpu(*backend, random_input(T, 2, 16, true, 0, 20 + T));
  }
}

TEST_F(GpuFixture, GpuMatchesCpuHeadWidths) {
  for (int dh : {16, 25, 64, 100, 128})
    for (int heads : {1, 4}) expect_matches_cpu(*backend, random_input(77, heads, dh, heads == 4, 5, 100 + dh));
}

TEST_F(GpuFixture, GpuMatchesCpuPadding) {
  expect_matches_cpu(*backend, random_input(40, 4, 25, false, 12, 7));
  expect_matches_cpu(*backend, random_input(40, 4, 25, true, 12, 8));
}

// T = 513 and beyond: where a kernel looping over all keys twice with d_h = 64 per invocation
// would pass llvmpipe's 65,535-iteration limit and return wrong numbers without an error.
TEST_F(GpuFixture, GpuMatchesCpuLong) {
  for (int T : {513, 1000, 2049}) expect_matches_cpu(*backend, random_input(T, 1, 64, T % 2 == 1, 3, T));
}

TEST_F(GpuFixture, GpuMatchesCpuAt4096) {
  expect_matches_cpu(*backend, random_input(4096, 1, 64, true, 0, 4096));
}

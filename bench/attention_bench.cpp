// Attention at T ∈ {512, 2048, 4096}, d_h = 64, h = 8, causal and not, measured side by side in
// one run: the tiled FlashAttention-style shader, the naive one-row-per-invocation shader (kept
// only here) and the Eigen CPU path. GFLOP/s with FLOPs = 4·T²·d_h·h, halved when causal.
// bench/run.sh runs this and the NumPy script, and prints the ratios.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/attention/attention.hpp"
#include "base/random.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/headless.hpp"

using namespace poslab;

namespace {

constexpr int kHeads = 8;
constexpr int kHeadDim = 64;

struct NaiveBuffers {
  gpu::Buffer q, k, v, c;
};

struct Gpu {
  std::unique_ptr<gpu::HeadlessContext> context;
  std::unique_ptr<gpu::GpuBackend> backend;
  gpu::ComputeProgram naive;
  std::unique_ptr<NaiveBuffers> buffers;  // made once the context is current
  gpu::GlHandle<gpu::QueryDeleter> timer;
};

Gpu& gpu_env() {
  static Gpu* env = [] {
    auto* e = new Gpu();
    auto ctx = gpu::HeadlessContext::create();
    if (!ctx) {
      std::fprintf(stderr, "no OpenGL context: %s\n", ctx.error().c_str());
      std::exit(1);
    }
    e->context = std::move(*ctx);
    auto b = gpu::GpuBackend::create();
    if (!b) {
      std::fprintf(stderr, "no GPU path: %s\n", b.error().c_str());
      std::exit(1);
    }
    e->backend = std::move(*b);
    std::ifstream in(POSLAB_BENCH_DIR "/naive_attention.comp");
    std::stringstream source;
    source << in.rdbuf();
    auto naive = gpu::ComputeProgram::from_source("naive_attention.comp", source.str());
    if (!naive) {
      std::fprintf(stderr, "%s\n", naive.error().c_str());
      std::exit(1);
    }
    e->naive = std::move(*naive);
    e->buffers = std::make_unique<NaiveBuffers>();
    GLuint query = 0;
    glGenQueries(1, &query);
    e->timer = gpu::GlHandle<gpu::QueryDeleter>(query);
    std::fprintf(stderr, "renderer: %s\n", e->context->description().c_str());
    return e;
  }();
  return *env;
}

AttentionInput make_input(int T, bool causal) {
  AttentionInput in;
  const int d = kHeads * kHeadDim;
  in.Q = gaussian_matrix(T, d, 0.5, 1);
  in.K = gaussian_matrix(T, d, 0.5, 2);
  in.V = gaussian_matrix(T, d, 1.0, 3);
  in.heads = kHeads;
  in.causal = causal;
  in.key_valid.assign(static_cast<std::size_t>(T), 1);
  return in;
}

double flops(int T, bool causal) {
  const double f = 4.0 * T * static_cast<double>(T) * kHeadDim * kHeads;
  return causal ? f / 2 : f;
}

void report(benchmark::State& state, int T, bool causal, double total_seconds, double error) {
  const double iterations = static_cast<double>(state.iterations());
  state.counters["GFLOP/s"] = flops(T, causal) * iterations / total_seconds / 1e9;
  state.counters["max_err"] = error;
}

// The flash kernel on the GPU backend: the shared-memory tiled one, or (register = true) the
// variant compiled for the head width with q and the accumulator in registers.
void run_flash_kernel(benchmark::State& state, bool register_kernel) {
  const int T = static_cast<int>(state.range(0));
  const bool causal = state.range(1) != 0;
  Gpu& g = gpu_env();
  g.backend->use_register_kernel(register_kernel);
  const AttentionInput in = make_input(T, causal);
  auto warm = g.backend->attend_only(in);
  if (!warm) {
    state.SkipWithError(warm.error().c_str());
    return;
  }
  const double error = (warm->context - attention_cpu(in).context).cwiseAbs().maxCoeff();
  double seconds = 0.0;
  for (auto _ : state) {
    auto r = g.backend->attend_only(in);
    // llvmpipe's timer queries miss compute work: take the wall time to glFinish when larger.
    const double s = std::max(r->gpu_ms, r->wall_ms) / 1000.0;
    state.SetIterationTime(s);
    seconds += s;
  }
  report(state, T, causal, seconds, error);
}

void BM_TiledShader(benchmark::State& state) { run_flash_kernel(state, false); }
void BM_RegisterShader(benchmark::State& state) { run_flash_kernel(state, true); }

void BM_NaiveShader(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0));
  const bool causal = state.range(1) != 0;
  Gpu& env = gpu_env();
  NaiveBuffers& g = *env.buffers;
  const AttentionInput in = make_input(T, causal);
  const int d = kHeads * kHeadDim;
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(T) * static_cast<std::size_t>(d);
  g.q.upload(in.Q.data(), bytes);
  g.k.upload(in.K.data(), bytes);
  g.v.upload(in.V.data(), bytes);
  g.c.reserve(bytes);
  auto dispatch = [&]() {
    env.naive.use();
    g.q.bind_base(0);
    g.k.bind_base(1);
    g.v.bind_base(2);
    g.c.bind_base(3);
    env.naive.set("T", T);
    env.naive.set("d", d);
    env.naive.set("heads", kHeads);
    env.naive.set("head_dim", kHeadDim);
    env.naive.set("causal", causal ? 1 : 0);
    env.naive.set("scale", 1.0f / std::sqrt(static_cast<float>(kHeadDim)));
    glFinish();
    const auto start = std::chrono::steady_clock::now();
    glBeginQuery(GL_TIME_ELAPSED, env.timer.id());
    glDispatchCompute(static_cast<GLuint>((T * kHeads + 63) / 64), 1, 1);
    glEndQuery(GL_TIME_ELAPSED);
    GLuint64 ns = 0;
    glGetQueryObjectui64v(env.timer.id(), GL_QUERY_RESULT, &ns);
    glFinish();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::max(static_cast<double>(ns) * 1e-9, wall);
  };
  dispatch();
  Matrix context(T, d);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  g.c.download(context.data(), bytes);
  const double error = (context - attention_cpu(in).context).cwiseAbs().maxCoeff();
  double seconds = 0.0;
  for (auto _ : state) {
    const double s = dispatch();
    state.SetIterationTime(s);
    seconds += s;
  }
  report(state, T, causal, seconds, error);
}

// The same computation as the NumPy script: the context only, heads in parallel.
void BM_EigenCpu(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0));
  const bool causal = state.range(1) != 0;
  const AttentionInput in = make_input(T, causal);
  const double error = (attention_context_cpu(in) - attention_cpu(in).context).cwiseAbs().maxCoeff();
  double seconds = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    Matrix context = attention_context_cpu(in);
    benchmark::DoNotOptimize(context.data());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(s);
    seconds += s;
  }
  report(state, T, causal, seconds, error);
}

// The app's CPU path, which also keeps every head's scores and weights for display and export.
void BM_EigenCpuAllMatrices(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0));
  const bool causal = state.range(1) != 0;
  const AttentionInput in = make_input(T, causal);
  double seconds = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    AttentionOutput out = attention_cpu(in);
    benchmark::DoNotOptimize(out.context.data());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(s);
    seconds += s;
  }
  report(state, T, causal, seconds, 0.0);
}

void shapes(benchmark::internal::Benchmark* b) {
  for (int T : {512, 2048, 4096})
    for (int causal : {0, 1}) b->Args({T, causal});
  b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
}

}  // namespace

BENCHMARK(BM_TiledShader)->Apply(shapes);
BENCHMARK(BM_RegisterShader)->Apply(shapes);
BENCHMARK(BM_NaiveShader)->Apply(shapes);
BENCHMARK(BM_EigenCpu)->Apply(shapes);
BENCHMARK(BM_EigenCpuAllMatrices)->Apply(shapes);
BENCHMARK_MAIN();

// The compute shaders run for real through EGL (no display) and must match the Eigen reference
// to 1e-4 for weights, context and output. These tests never skip: no OpenGL 4.3 context is a
// failure.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "core/encodings/encodings.hpp"
#include "core/attention/pipeline.hpp"
#include "base/random.hpp"
#include "core/workspace.hpp"
#include "gpu/attention_gpu.hpp"
#include "gpu/gpu_thread.hpp"
#include "gpu/headless.hpp"
#include "plot/colormap.hpp"
#include "plot/heatmap.hpp"

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

struct Shape {
  int T = 8;
  int heads = 2;
  int head_dim = 16;
  bool causal = false;
  int padded = 0;     // trailing keys masked as padding
  bool rope = false;
  RopeStyle style = RopeStyle::Interleaved;
  bool bias = false;
  int keys = 0;       // 0: self-attention; otherwise cross-attention with this many keys
};

AttentionProblem random_problem(const Shape& s, std::uint64_t seed) {
  AttentionProblem p;
  const int d = s.heads * s.head_dim;
  const int Tk = s.keys > 0 ? s.keys : s.T;
  p.Xq = gaussian_matrix(s.T, d, 1.0, mix_seed(seed, 1));
  p.Xkv = s.keys > 0 ? gaussian_matrix(Tk, d, 1.0, mix_seed(seed, 2)) : p.Xq;
  const double w = 1.0 / std::sqrt(static_cast<double>(d));
  p.Wq = gaussian_matrix(d, d, 2.0 * w, mix_seed(seed, 3));
  p.Wk = gaussian_matrix(d, d, 2.0 * w, mix_seed(seed, 4));
  p.Wv = gaussian_matrix(d, d, w, mix_seed(seed, 5));
  p.Wo = gaussian_matrix(d, d, w, mix_seed(seed, 6));
  p.heads = s.heads;
  p.causal = s.causal;
  p.key_valid.assign(static_cast<std::size_t>(Tk), 1);
  for (int t = std::max(1, Tk - s.padded); t < Tk; ++t) p.key_valid[static_cast<std::size_t>(t)] = 0;
  if (s.rope) {
    p.rope = rope_1d(rope_thetas(s.head_dim, 10000.0), s.heads, s.style, s.T, Tk);
    for (auto& pos : p.rope.query_positions) pos.x += 3000;  // large angles
    for (auto& pos : p.rope.key_positions) pos.x += 3000;
  }
  if (s.bias) p.relative_bias = gaussian_matrix(s.heads, s.T + Tk - 1, 1.0, mix_seed(seed, 7));
  return p;
}

// Compares every weight, context and output value of the GPU with the CPU reference.
void expect_matches_cpu(gpu::GpuBackend& backend, const Shape& s, std::uint64_t seed) {
  const AttentionProblem p = random_problem(s, seed);
  auto gpu_out = backend.run(p);
  ASSERT_TRUE(gpu_out.ok()) << gpu_out.error();
  const AttentionOutput cpu_out = solve_cpu(p);
  ASSERT_EQ(gpu_out->weights.size(), cpu_out.weights.size());
  EXPECT_LE(max_abs_difference(*gpu_out, cpu_out), 1e-4)
      << "T=" << s.T << " heads=" << s.heads << " d_h=" << s.head_dim << " causal=" << s.causal << " rope=" << s.rope;
  EXPECT_LE((gpu_out->output - cpu_out.output).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_GT(cpu_out.output.cwiseAbs().maxCoeff(), 1e-2);  // a real signal, not zeros on both sides
  // Masked cells: −inf scores and exactly zero weights on both paths.
  for (std::size_t h = 0; h < cpu_out.weights.size(); ++h)
    for (int i = 0; i < p.queries(); ++i)
      for (int j = 0; j < p.keys(); ++j)
        if (p.masked(i, j)) {
          ASSERT_EQ(gpu_out->weights[h](i, j), 0.0f);
          ASSERT_TRUE(std::isinf(gpu_out->scores[h](i, j)) && gpu_out->scores[h](i, j) < 0);
        }
}

}  // namespace

TEST_F(GpuFixture, GpuMatchesCpuShortSequences) {
  for (int T : {1, 2, 5, 15, 16, 17, 33}) {
    expect_matches_cpu(*backend, {.T = T}, 10 + static_cast<std::uint64_t>(T));
    expect_matches_cpu(*backend, {.T = T, .causal = true}, 20 + static_cast<std::uint64_t>(T));
  }
}

TEST_F(GpuFixture, GpuMatchesCpuHeadWidthsAndCounts) {
  // 16 … 128 take the tiled FlashAttention kernel; 160 and 256 the three-pass path. Each width
  // once, each kernel with 1, 4 (causal) and 8 heads: every width against every count took two
  // minutes of llvmpipe for no path the pairs below leave out.
  const std::pair<int, int> widths_heads[] = {{16, 8}, {25, 1}, {64, 4}, {64, 8}, {100, 1}, {128, 4}, {160, 4}, {160, 8}, {256, 1}};
  for (const auto& [dh, heads] : widths_heads)
    expect_matches_cpu(*backend, {.T = 77, .heads = heads, .head_dim = dh, .causal = heads == 4, .padded = 5},
                       100 + static_cast<std::uint64_t>(dh * heads));
}

TEST_F(GpuFixture, GpuMatchesCpuWithRopeInBothConventions) {
  for (RopeStyle style : {RopeStyle::Interleaved, RopeStyle::Half})
    for (bool causal : {false, true})
      expect_matches_cpu(*backend, {.T = 50, .heads = 4, .head_dim = 64, .causal = causal, .rope = true, .style = style}, 7);
}

TEST_F(GpuFixture, GpuMatchesCpuWithRelativeBiasAndPadding) {
  expect_matches_cpu(*backend, {.T = 40, .heads = 4, .head_dim = 32, .causal = false, .padded = 12, .bias = true}, 8);
  expect_matches_cpu(*backend, {.T = 40, .heads = 4, .head_dim = 32, .causal = true, .padded = 12, .bias = true}, 9);
}

TEST_F(GpuFixture, GpuMatchesCpuCrossAttention) {
  expect_matches_cpu(*backend, {.T = 9, .heads = 2, .head_dim = 32, .bias = true, .keys = 23}, 11);
  expect_matches_cpu(*backend, {.T = 40, .heads = 2, .head_dim = 32, .padded = 3, .keys = 1500}, 12);
}

// T = 513 and beyond: where a kernel that loops over every key per invocation (twice, with d_h
// = 64 per key) would pass llvmpipe's 65,535-iteration limit and return wrong numbers silently.
// 1500 and 2049 also cross the 1024-key split of the flash kernel.
TEST_F(GpuFixture, GpuMatchesCpuLongSequences) {
  for (int T : {513, 1000, 1500, 2049})
    expect_matches_cpu(*backend, {.T = T, .heads = 1, .head_dim = 64, .causal = T % 2 == 1, .padded = 3},
                       static_cast<std::uint64_t>(T));
}

// 4096 tokens with RoPE at positions 3000 … 7095: every key split and large angles. One head of
// width 32: llvmpipe's time grows with T² · d_h, and the widths have their own test above.
TEST_F(GpuFixture, GpuMatchesCpuAt4096) {
  expect_matches_cpu(*backend, {.T = 4096, .heads = 1, .head_dim = 32, .causal = true, .rope = true}, 4096);
}

// 9000 keys in one walk would be about 563 tiles × (d_h + 8) ≈ 76,000 loop iterations for one
// invocation: past llvmpipe's limit. The split over keys is what keeps this right.
TEST_F(GpuFixture, GpuMatchesCpuWithVeryManyKeys) {
  expect_matches_cpu(*backend, {.T = 20, .heads = 1, .head_dim = 128, .padded = 7, .keys = 9000}, 9000);
}

TEST_F(GpuFixture, GpuReportsItsTime) {
  ASSERT_TRUE(backend->run(random_problem({.T = 64, .heads = 2, .head_dim = 32}, 1)).ok());
  ASSERT_TRUE(backend->last_device_ms().has_value());
  EXPECT_GT(*backend->last_device_ms(), 0.0);
}

// The heatmap cells the GPU paints straight into the screen's texture must be the image the plot
// module builds on the CPU for export: same colours, same hatch, same layout.
TEST_F(GpuFixture, GpuPaintedHeatmapEqualsTheCpuImage) {
  const AttentionProblem p = random_problem({.T = 21, .heads = 2, .head_dim = 16, .causal = true, .padded = 4}, 5);
  auto out = backend->run(p);
  ASSERT_TRUE(out.ok()) << out.error();
  for (bool scores : {false, true}) {
    plot::HeatmapSpec spec;
    spec.values = scores ? &out->scores[1] : &out->weights[1];
    spec.masked = [&p](int i, int j) { return p.masked(i, j); };
    spec.colormap = scores ? plot::Colormap::Diverging : plot::Colormap::Viridis;
    spec.vmin = scores ? -3.0f : 0.0f;
    spec.vmax = scores ? 3.0f : out->weights[1].maxCoeff();
    const plot::Image expected = plot::heatmap_cells(spec);

    gpu::HeatmapPaint paint;
    paint.head = 1;
    paint.scores = scores;
    paint.vmin = spec.vmin;
    paint.vmax = spec.vmax;
    paint.texels_per_cell = plot::heatmap_texels_per_cell(21);
    paint.lut = plot::colormap_lut(spec.colormap);
    std::copy_n(&plot::kMaskLight.r, 4, paint.mask_light);
    std::copy_n(&plot::kMaskDark.r, 4, paint.mask_dark);
    auto texture = backend->paint_heatmap(paint);
    ASSERT_TRUE(texture.ok()) << texture.error();
    std::vector<unsigned char> painted(expected.rgba.size());
    glBindTexture(GL_TEXTURE_2D, *texture);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, painted.data());
    ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));

    std::size_t differing = 0;
    int worst = 0;
    for (std::size_t k = 0; k < painted.size(); ++k) {
      const int diff = std::abs(static_cast<int>(painted[k]) - static_cast<int>(expected.rgba[k]));
      differing += diff > 0 ? 1 : 0;
      worst = std::max(worst, diff);
    }
    // Float rounding may move a value across one of the 256 colour steps, nothing more.
    EXPECT_LE(worst, 6) << (scores ? "scores" : "weights");
    EXPECT_LE(differing, painted.size() / 200) << (scores ? "scores" : "weights");
  }
}

// Every encoding and bias through the whole pipeline: the GPU path agrees with the CPU path
// (Shaw's relative vectors run on the CPU, and the results say so).
TEST_F(GpuFixture, GpuPipelineAgreesForEveryEncodingAndBias) {
  const std::vector<std::string> words = {"the", "dog", "chased", "another", "cat", "sat", "on", "mat", "."};
  const EmbeddingTable table(words, gaussian_matrix(static_cast<int>(words.size()), 32, 1.0, 3), "test");
  ModelSettings s;
  s.sentence = "the dog chased another dog on the mat";
  s.heads = 4;
  s.sigma = 0.3;
  for (EncodingKind e : {EncodingKind::None, EncodingKind::Integer, EncodingKind::Normalized, EncodingKind::Binary,
                         EncodingKind::Sinusoidal, EncodingKind::Learned, EncodingKind::Rope})
    for (BiasKind b : {BiasKind::None, BiasKind::Alibi, BiasKind::T5, BiasKind::Shaw})
      for (bool causal : {false, true}) {
        s.encoding = e;
        s.bias = b;
        s.causal = causal;
        auto r = run_pipeline(s, table, *backend, true);
        ASSERT_TRUE(r.ok()) << r.error();
        if (b == BiasKind::Shaw) {
          ASSERT_EQ(r->notes.size(), 1u);
          EXPECT_NE(r->notes[0].find("CPU path only"), std::string::npos);
          continue;
        }
        EXPECT_TRUE(r->notes.empty()) << r->notes[0];
        ASSERT_TRUE(r->max_diff_vs_cpu.has_value());
        EXPECT_LE(*r->max_diff_vs_cpu, 1e-4) << to_string(e) << " " << to_string(b) << " causal " << causal;
      }
  // RoPE variants: scaling, p-RoPE, partial rotary, 2-D axial and mixed, cross-attention.
  s.bias = BiasKind::None;
  s.encoding = EncodingKind::Rope;
  s.causal = false;
  std::vector<ModelSettings> variants;
  for (auto type : {RopeScalingType::Linear, RopeScalingType::Ntk, RopeScalingType::Dynamic, RopeScalingType::Yarn,
                    RopeScalingType::Llama3}) {
    ModelSettings v = s;
    v.scaling.type = type;
    v.scaling.factor = 4.0;
    v.scaling.original_max_position = 4;
    variants.push_back(v);
  }
  ModelSettings v = s;
  v.rope_fraction = 0.5;
  v.rotary_dim = 6;
  v.rope_style = RopeStyle::Half;
  variants.push_back(v);
  v = s;
  v.grid_width = 3;
  v.grid_height = 3;
  variants.push_back(v);
  v.rope_2d = Rope2d::Mixed;
  v.cls = true;
  variants.push_back(v);
  v = s;
  v.cross_sentence = "the cat sat on the mat .";
  v.bias = BiasKind::T5;
  variants.push_back(v);
  for (const ModelSettings& m : variants) {
    auto r = run_pipeline(m, table, *backend, true);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_LE(*r->max_diff_vs_cpu, 1e-4) << describe_encoding(m);
  }
}

// The GPU thread (the GUI's path): its own context on its own thread, called from several threads
// at once, each call run there in turn; a workspace computes through it off the calling thread.
TEST_F(GpuFixture, GpuThreadServesRunsFromAnyThreadAndTheWorkspaceComputesThroughItAsync) {
  auto ctx = gpu::HeadlessContext::create();  // current here now: released for the GPU thread
  ASSERT_TRUE(ctx.ok()) << ctx.error();
  gpu::HeadlessContext* raw = ctx->get();
  raw->release();
  auto started = gpu::GpuThread::start([raw] { raw->make_current(); });
  context->make_current();  // the fixture's context back on this thread
  ASSERT_TRUE(started.ok()) << started.error();
  gpu::GpuThread& thread = **started;
  EXPECT_TRUE(thread.callable_from_any_thread());

  std::vector<AttentionProblem> problems;
  for (int k = 0; k < 3; ++k) problems.push_back(random_problem({.T = 40 + 7 * k, .heads = 2, .head_dim = 16, .causal = k == 1}, 90 + k));
  std::vector<double> diffs(problems.size(), -1.0);
  std::vector<std::thread> callers;
  for (std::size_t k = 0; k < problems.size(); ++k)
    callers.emplace_back([&, k] {
      auto out = thread.run(problems[k]);
      if (out) diffs[k] = max_abs_difference(*out, solve_cpu(problems[k]));
    });
  for (auto& c : callers) c.join();
  for (double d : diffs) {
    EXPECT_GE(d, 0.0) << "a run failed";
    EXPECT_LE(d, 1e-4);
  }

  // A paint names the run it shows: refused once a later run (a stale one, say) replaced it.
  ASSERT_TRUE(thread.run(problems[0]).ok());
  const std::uint64_t first = thread.last_run();
  ASSERT_TRUE(thread.run(problems[1]).ok());
  const std::uint64_t second = thread.last_run();
  EXPECT_GT(second, first);
  gpu::HeatmapPaint paint;
  paint.lut = plot::colormap_lut(plot::Colormap::Viridis);
  paint.run = first;
  EXPECT_FALSE(thread.paint_heatmap(paint).ok());
  paint.run = second;
  auto painted = thread.paint_heatmap(paint);
  EXPECT_TRUE(painted.ok()) << painted.error();

  // A workspace with this backend runs the GPU path on its worker: update_async returns at once.
  const std::vector<std::string> words = {"the", "dog", "chased", "another", "cat"};
  Workspace workspace;
  workspace.set_embeddings(EmbeddingTable(words, gaussian_matrix(static_cast<int>(words.size()), 32, 1.0, 300), "test"), "test");
  workspace.set_gpu_backend(&thread, {}, "a hardware renderer");
  State state;
  state.backend = Backend::Gpu;
  state.check_against_cpu = true;
  state.model.sentence = "the dog chased another cat";
  state.model.heads = 2;
  ASSERT_TRUE(workspace.update_async(state).ok());
  EXPECT_EQ(workspace.results(), nullptr);  // on its worker: installed by a later call, not computed in this one
  ASSERT_TRUE(workspace.wait().ok());
  ASSERT_NE(workspace.results(), nullptr);
  EXPECT_EQ(workspace.results()->backend.rfind("GPU", 0), 0u) << workspace.results()->backend;
  ASSERT_TRUE(workspace.results()->max_diff_vs_cpu.has_value());
  EXPECT_LE(*workspace.results()->max_diff_vs_cpu, 1e-4);
  EXPECT_TRUE(workspace.results()->notes.empty() || workspace.results()->notes.front().find("unavailable") == std::string::npos);
  workspace.stop();
}

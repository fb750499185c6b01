#include "gpu/attention_gpu.hpp"

#include "gpu/shaders.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace poslab::gpu {

namespace {

constexpr GLbitfield kStorageBarrier = GL_SHADER_STORAGE_BARRIER_BIT;

GLuint groups(int n, int per_group) { return static_cast<GLuint>((n + per_group - 1) / per_group); }

std::size_t bytes_of(const Matrix& m) { return sizeof(float) * static_cast<std::size_t>(m.size()); }

void upload(Buffer& b, const Matrix& m) { b.upload(m.data(), bytes_of(m)); }

std::string gl_error_text(GLenum err) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "OpenGL error 0x%04x", err);
  return buf;
}

// Measures the GPU time of the commands issued while it lives, adding it to `total_ms`.
class ScopedTimer {
 public:
  ScopedTimer(GLuint query, double& total_ms) : query_(query), total_ms_(total_ms) { glBeginQuery(GL_TIME_ELAPSED, query_); }
  ~ScopedTimer() {
    glEndQuery(GL_TIME_ELAPSED);
    GLuint64 ns = 0;
    glGetQueryObjectui64v(query_, GL_QUERY_RESULT, &ns);
    total_ms_ += static_cast<double>(ns) * 1e-6;
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  GLuint query_;
  double& total_ms_;
};

}  // namespace

Result<std::unique_ptr<GpuBackend>> GpuBackend::create() {
  if (!context_at_least(4, 3))
    return Error{"OpenGL 4.3 is needed for compute shaders; this context is " + describe_context()};
  std::unique_ptr<GpuBackend> b(new GpuBackend());
  struct Named {
    ComputeProgram* program;
    const char* file;
  };
  for (const Named& n : {Named{&b->matmul_shader_, "matmul.comp"}, Named{&b->rope_shader_, "rope.comp"},
                         Named{&b->flash_shader_, "flash_attention.comp"},
Named{&b->combine_shader_, "flash_combine.comp"},
                         Named{&b->scores_shader_, "attention_scores.comp"}, Named{&b->softmax_shader_, "attention_softmax.comp"},
                         Named{&b->context_shader_, "attention_context.comp"}, Named{&b->colors_shader_, "heatmap_colors.comp"}}) {
    auto program = ComputeProgram::create(n.file);
    if (!program) return Error{program.error()};
    *n.program = std::move(*program);
  }
  GLuint query = 0;
  glGenQueries(1, &query);
  b->timer_ = GlHandle<QueryDeleter>(query);
  const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  b->renderer_ = renderer ? renderer : "unknown";
  GLint64 max_block = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
  b->max_block_bytes_ = static_cast<std::size_t>(max_block);
  return b;
}

void GpuBackend::matmul(const Buffer& a, const Buffer& b, Buffer& c, int M, int N, int K) {
  c.reserve(sizeof(float) * static_cast<std::size_t>(M) * static_cast<std::size_t>(N));
  matmul_shader_.use();
  a.bind_base(0);
  b.bind_base(1);
  c.bind_base(2);
  matmul_shader_.set("M", M);
  matmul_shader_.set("N", N);
  matmul_shader_.set("K", K);
  glDispatchCompute(groups(N, 16), groups(M, 16), 1);
  glMemoryBarrier(kStorageBarrier);
}

void GpuBackend::apply_rope(Buffer& x, int rows, const Buffer& positions, const AttentionProblem& p) {
  const int pairs = p.rope.pairs;
  rope_shader_.use();
  x.bind_base(0);
  thetas_.bind_base(1);
  positions.bind_base(2);
  rope_shader_.set("T", rows);
  rope_shader_.set("d", d_);
  rope_shader_.set("heads", heads_);
  rope_shader_.set("head_dim", head_dim_);
  rope_shader_.set("pairs", pairs);
  rope_shader_.set("half_style", p.rope.style == RopeStyle::Half ? 1 : 0);
  rope_shader_.set("scale", static_cast<float>(p.rope.scale));
  glDispatchCompute(groups(rows * heads_ * pairs, 64), 1, 1);
  glMemoryBarrier(kStorageBarrier);
}

void GpuBackend::project(const AttentionProblem& p) {
  upload(xq_, p.Xq);
  upload(xkv_, p.Xkv);
  upload(wq_, p.Wq);
  upload(wk_, p.Wk);
  upload(wv_, p.Wv);
  upload(wo_, p.Wo);
  matmul(xq_, wq_, q_, Tq_, d_, d_);   // Q = Xq·W_q
  matmul(xkv_, wk_, k_, Tk_, d_, d_);  // K = Xkv·W_k
  matmul(xkv_, wv_, v_, Tk_, d_, d_);  // V = Xkv·W_v
  if (!p.rope.enabled || p.rope.pairs == 0) return;
  std::vector<double> thetas;  // heads × pairs of (θˣ, θʸ)
  for (std::size_t k = 0; k < p.rope.theta_x.size(); ++k) thetas.insert(thetas.end(), {p.rope.theta_x[k], p.rope.theta_y[k]});
  thetas_.upload(thetas.data(), thetas.size() * sizeof(double));
  static_assert(sizeof(RopePosition) == 2 * sizeof(int), "positions upload as ivec2");
  qpos_.upload(p.rope.query_positions.data(), p.rope.query_positions.size() * sizeof(RopePosition));
  kpos_.upload(p.rope.key_positions.data(), p.rope.key_positions.size() * sizeof(RopePosition));
  apply_rope(q_, Tq_, qpos_, p);
  apply_rope(k_, Tk_, kpos_, p);
}

// Makes `program` current, binds `buffers` to bindings 0, 1, 2, … and sets the uniforms of the
// problem's shape. A kernel that does not declare one of them ignores it (location −1).
void GpuBackend::use_with(const ComputeProgram& program, std::initializer_list<const Buffer*> buffers) const {
  program.use();
  GLuint binding = 0;
  for (const Buffer* b : buffers) b->bind_base(binding++);
  program.set("Tq", Tq_);
  program.set("Tk", Tk_);
  program.set("d", d_);
  program.set("heads", heads_);
  program.set("head_dim", head_dim_);
  program.set("causal", causal_ ? 1 : 0);
  program.set("has_bias", has_bias_ ? 1 : 0);
  program.set("scale", 1.0f / std::sqrt(static_cast<float>(head_dim_)));
}

Result<const ComputeProgram*> GpuBackend::register_kernel(int head_dim) {
  if (auto it = register_kernels_.find(head_dim); it != register_kernels_.end()) return &it->second;
  // The head width is a compile-time constant: its #define goes right after the #version line.
  std::string source = shader_source("flash_attention_regs.comp");
  const std::size_t line_end = source.find('\n');
  if (source.empty() || line_end == std::string::npos) return Error{"shader flash_attention_regs.comp is not in the binary"};
  source.insert(line_end + 1, "#define HEAD_DIM " + std::to_string(head_dim) + "\n");
  auto program = ComputeProgram::from_source("flash_attention_regs.comp (HEAD_DIM " + std::to_string(head_dim) + ")", source);
  if (!program) return Error{program.error()};
  return &register_kernels_.emplace(head_dim, std::move(*program)).first->second;
}

Status GpuBackend::attend_flash() {
  if (register_kernel_ && register_kernel_fits(head_dim_)) {
    auto kernel = register_kernel(head_dim_);
    if (!kernel) return Error{kernel.error()};
    return attend_flash_with(**kernel, register_keys_per_split(head_dim_));
  }
  return attend_flash_with(flash_shader_, keys_per_split(head_dim_));
}

Status GpuBackend::attend_flash_with(const ComputeProgram& kernel, int split_keys) {
  splits_ = (Tk_ + split_keys - 1) / split_keys;
  const std::size_t rows = static_cast<std::size_t>(splits_) * static_cast<std::size_t>(heads_) * static_cast<std::size_t>(Tq_);
  partial_o_.reserve(rows * static_cast<std::size_t>(head_dim_) * sizeof(float));
  partial_ml_.reserve(rows * 2 * sizeof(float));
  stats_.reserve(static_cast<std::size_t>(heads_) * static_cast<std::size_t>(Tq_) * 2 * sizeof(float));
  use_with(kernel, {&q_, &k_, &v_, &valid_, &bias_, &partial_o_, &partial_ml_});
  kernel.set("keys_per_split", split_keys);
  glDispatchCompute(groups(Tq_, 64), static_cast<GLuint>(splits_), static_cast<GLuint>(heads_));
  glMemoryBarrier(kStorageBarrier);

  use_with(combine_shader_, {&partial_o_, &partial_ml_, &context_, &stats_});
  combine_shader_.set("splits", splits_);
  glDispatchCompute(groups(Tq_ * head_dim_, 64), static_cast<GLuint>(heads_), 1);
  glMemoryBarrier(kStorageBarrier);
  return Ok{};
}

void GpuBackend::scores_for_head(int head, bool normalize) {
  use_with(scores_shader_, {&q_, &k_, &valid_, &bias_, &stats_, &s_, &a_});
  scores_shader_.set("head", head);
  scores_shader_.set("normalize", normalize ? 1 : 0);
  glDispatchCompute(groups(Tk_, 16), groups(Tq_, 16), 1);
  glMemoryBarrier(kStorageBarrier);
}

void GpuBackend::attend_three_pass(int head) {
  scores_for_head(head, false);
  use_with(softmax_shader_, {&s_, &a_});
  glDispatchCompute(static_cast<GLuint>(Tq_), 1, 1);
  glMemoryBarrier(kStorageBarrier);
  use_with(context_shader_, {&a_, &v_, &context_});
  context_shader_.set("head", head);
  glDispatchCompute(groups(head_dim_, 16), groups(Tq_, 16), 1);
  glMemoryBarrier(kStorageBarrier);
}

void GpuBackend::set_shape(int queries, int keys, int width, int heads, bool causal, bool has_bias) {
  Tq_ = queries;
  Tk_ = keys;
  d_ = width;
  heads_ = heads;
  head_dim_ = width / heads;
  causal_ = causal;
  has_bias_ = has_bias;
  flash_ = head_dim_ <= kFlashMaxHeadDim;
}

void GpuBackend::upload_masks(const std::vector<std::uint8_t>& key_valid, const Matrix& relative_bias) {
  std::vector<GLuint> valid(key_valid.begin(), key_valid.end());
  valid_.upload(valid.data(), valid.size() * sizeof(GLuint));
  if (relative_bias.size() > 0) upload(bias_, relative_bias);
  else bias_.reserve(sizeof(float));
}

Result<GpuBackend::Timed> GpuBackend::attend_only(const AttentionInput& in) {
  valid_run_ = false;
  set_shape(in.queries(), in.keys(), static_cast<int>(in.Q.cols()), in.heads, in.causal, in.relative_bias.size() > 0);
  if (!flash_) return Error{"attend_only takes heads up to " + std::to_string(kFlashMaxHeadDim) + " wide"};
  upload_masks(in.key_valid, in.relative_bias);
  upload(q_, in.Q);
  upload(k_, in.K);
  upload(v_, in.V);
  const std::size_t context_bytes = sizeof(float) * static_cast<std::size_t>(Tq_) * static_cast<std::size_t>(d_);
  context_.reserve(context_bytes);
  Timed t;
  glFinish();
  const auto start = std::chrono::steady_clock::now();
  {
    ScopedTimer timer(timer_.id(), t.gpu_ms);
    if (auto s = attend_flash(); !s) return Error{s.error()};
  }
  glFinish();
  t.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  t.context.resize(Tq_, d_);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  context_.download(t.context.data(), context_bytes);
  if (const GLenum err = glGetError(); err != GL_NO_ERROR) return Error{gl_error_text(err)};
  return t;
}

void GpuBackend::head_weights(AttentionOutput& out, double& gpu_ms, bool keep) {
  const std::size_t square_bytes = sizeof(float) * static_cast<std::size_t>(Tq_) * static_cast<std::size_t>(Tk_);
  // The weights and scores of every head, for the CPU side (export, CSV, tooltips, the check).
  // Without the flash kernel the three passes also make each head's context.
  for (int h = 0; h < heads_; ++h) {
    if (!keep && flash_) return;
    {
      ScopedTimer timer(timer_.id(), gpu_ms);
      if (flash_) scores_for_head(h, true);
      else attend_three_pass(h);
      glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    }
    if (!keep) continue;
    Matrix S(Tq_, Tk_), A(Tq_, Tk_);
    s_.download(S.data(), square_bytes);
    a_.download(A.data(), square_bytes);
    out.scores.push_back(std::move(S));
    out.weights.push_back(std::move(A));
  }
}

Status GpuBackend::begin(int queries, int keys, int width, int heads, bool causal, const std::vector<std::uint8_t>& key_valid,
                         const Matrix& relative_bias, bool shaw, bool squares) {
  valid_run_ = false;
  set_shape(queries, keys, width, heads, causal, relative_bias.size() > 0);
  if (shaw) return Error{"Shaw's relative vectors are computed on the CPU path only"};
  const std::size_t square_bytes = sizeof(float) * static_cast<std::size_t>(Tq_) * static_cast<std::size_t>(Tk_);
  if (squares && square_bytes > max_block_bytes_)
    return Error{std::to_string(Tq_) + " × " + std::to_string(Tk_) + " weights need " + std::to_string(square_bytes >> 20) +
                 " MiB, more than this GPU's storage block limit of " + std::to_string(max_block_bytes_ >> 20) + " MiB"};
  upload_masks(key_valid, relative_bias);
  if (squares) {
    s_.reserve(square_bytes);
    a_.reserve(square_bytes);
  }
  context_.reserve(sizeof(float) * static_cast<std::size_t>(Tq_) * static_cast<std::size_t>(d_));
  return Ok{};
}

Result<AttentionOutput> GpuBackend::attend(const AttentionInput& in, bool with_weights) {
  if (in.cpu_only()) return Error{"soft-capped scores, chunked attention, learned sinks, Shaw's vectors and BF16 activations are computed on the CPU path only"};
  if (auto s = begin(in.queries(), in.keys(), static_cast<int>(in.Q.cols()), in.heads, in.causal, in.key_valid,
                     in.relative_bias, in.shaw.has_value(), with_weights || !flash_);
      !s)
    return Error{s.error()};
  upload(q_, in.Q);
  upload(k_, in.K);
  upload(v_, in.V);
  const std::size_t context_bytes = sizeof(float) * static_cast<std::size_t>(Tq_) * static_cast<std::size_t>(d_);
  AttentionOutput out;
  double gpu_ms = 0.0;
  if (flash_) {
    ScopedTimer timer(timer_.id(), gpu_ms);
    if (auto s = attend_flash(); !s) return Error{s.error()};
  }
  head_weights(out, gpu_ms, with_weights);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  out.context.resize(Tq_, d_);
  context_.download(out.context.data(), context_bytes);
  last_gpu_ms_ = gpu_ms;
  if (const GLenum err = glGetError(); err != GL_NO_ERROR) return Error{gl_error_text(err)};
  valid_run_ = with_weights;
  return out;
}

Result<AttentionOutput> GpuBackend::run(const AttentionProblem& p) {
  if (auto s = begin(p.queries(), p.keys(), p.width(), p.heads, p.causal, p.key_valid, p.relative_bias, p.shaw.has_value(), true); !s)
    return Error{s.error()};
  const std::size_t context_bytes = sizeof(float) * static_cast<std::size_t>(Tq_) * static_cast<std::size_t>(d_);

  AttentionOutput out;
  double gpu_ms = 0.0;
  {
    ScopedTimer timer(timer_.id(), gpu_ms);
    project(p);
    if (flash_)
      if (auto s = attend_flash(); !s) return Error{s.error()};
  }
  head_weights(out, gpu_ms, true);
  {
    ScopedTimer timer(timer_.id(), gpu_ms);
    matmul(context_, wo_, output_, Tq_, d_, d_);  // output = context·W_o
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  }
  out.context.resize(Tq_, d_);
  out.output.resize(Tq_, d_);
  context_.download(out.context.data(), context_bytes);
  output_.download(out.output.data(), context_bytes);
  last_gpu_ms_ = gpu_ms;
  if (const GLenum err = glGetError(); err != GL_NO_ERROR) return Error{gl_error_text(err)};
  valid_run_ = true;
  return out;
}

Result<GLuint> GpuBackend::paint_heatmap(const HeatmapPaint& paint) {
  if (!valid_run_) return Error{"nothing computed on the GPU yet"};
  if (paint.head < 0 || paint.head >= heads_) return Error{"no head " + std::to_string(paint.head)};
  if (paint.lut.size() != 256 * 4) return Error{"the colormap needs 256 RGBA entries"};
  if (flash_) scores_for_head(paint.head, true);
  else attend_three_pass(paint.head);
  const int f = paint.texels_per_cell;
  heatmap_.allocate(Tk_ * f, Tq_ * f);
  lut_.upload(paint.lut.data(), paint.lut.size() * sizeof(float));
  colors_shader_.use();
  glBindImageTexture(0, heatmap_.id(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
  (paint.scores ? s_ : a_).bind_base(0);
  valid_.bind_base(1);
  lut_.bind_base(2);
  colors_shader_.set("rows", Tq_);
  colors_shader_.set("cols", Tk_);
  colors_shader_.set("texels_per_cell", f);
  colors_shader_.set("causal", causal_ ? 1 : 0);
  colors_shader_.set("vmin", paint.vmin);
  colors_shader_.set("vmax", paint.vmax);
  glUniform4fv(glGetUniformLocation(colors_shader_.id(), "mask_light"), 1, paint.mask_light);
  glUniform4fv(glGetUniformLocation(colors_shader_.id(), "mask_dark"), 1, paint.mask_dark);
  glDispatchCompute(groups(Tk_ * f, 16), groups(Tq_ * f, 16), 1);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT);
  if (const GLenum err = glGetError(); err != GL_NO_ERROR) return Error{gl_error_text(err)};
  return heatmap_.id();
}

}  // namespace poslab::gpu

#include "gpu/attention_gpu.hpp"

#include <cmath>
#include <vector>

namespace poslab::gpu {

Result<std::unique_ptr<GpuBackend>> GpuBackend::create() {
  if (!context_at_least(4, 3))
    return Error{"OpenGL 4.3 is needed for compute shaders; this context is " + describe_context()};
  std::unique_ptr<GpuBackend> b(new GpuBackend());
  auto scores = ComputeProgram::create("attention_scores.comp");
  if (!scores) return Error{scores.error()};
  auto softmax = ComputeProgram::create("attention_softmax.comp");
  if (!softmax) return Error{softmax.error()};
  auto context = ComputeProgram::create("attention_context.comp");
  if (!context) return Error{context.error()};
  b->scores_ = std::move(*scores);
  b->softmax_ = std::move(*softmax);
  b->context_ = std::move(*context);
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

Result<AttentionOutput> GpuBackend::run(const AttentionInput& in) {
  const int T = in.tokens();
  const int d = static_cast<int>(in.Q.cols());
  const int dh = in.head_dim();
  const std::size_t square_bytes = sizeof(float) * static_cast<std::size_t>(T) * static_cast<std::size_t>(T);
  if (square_bytes > max_block_bytes_)
    return Error{"T = " + std::to_string(T) + " needs a " + std::to_string(square_bytes >> 20) +
                 " MiB score buffer, more than this GPU's storage block limit of " +
                 std::to_string(max_block_bytes_ >> 20) + " MiB"};
  const std::size_t td_bytes = sizeof(float) * static_cast<std::size_t>(T) * static_cast<std::size_t>(d);
  q_.upload(in.Q.data(), td_bytes);
  k_.upload(in.K.data(), td_bytes);
  v_.upload(in.V.data(), td_bytes);
  std::vector<GLuint> valid(in.key_valid.begin(), in.key_valid.end());
  valid_.upload(valid.data(), valid.size() * sizeof(GLuint));
  s_.reserve(square_bytes);
  a_.reserve(square_bytes);
  c_.reserve(td_bytes);
  q_.bind_base(0);
  k_.bind_base(1);
  valid_.bind_base(2);
  s_.bind_base(3);
  a_.bind_base(4);
  v_.bind_base(5);
  c_.bind_base(6);

  AttentionOutput out;
  out.context.resize(T, d);
  const GLuint tiles = static_cast<GLuint>((T + 15) / 16);
  const GLuint column_tiles = static_cast<GLuint>((dh + 15) / 16);
  double gpu_ns = 0.0;
  for (int h = 0; h < in.heads; ++h) {
    glBeginQuery(GL_TIME_ELAPSED, timer_.id());
    scores_.use();
    scores_.set("T", T);
    scores_.set("d", d);
    scores_.set("head_dim", dh);
    scores_.set("head", h);
    scores_.set("causal", in.causal ? 1 : 0);
    scores_.set("scale", 1.0f / std::sqrt(static_cast<float>(dh)));
    glDispatchCompute(tiles, tiles, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);

    softmax_.use();
    softmax_.set("T", T);
    glDispatchCompute(static_cast<GLuint>(T), 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);

    context_.use();
    context_.set("T", T);
    context_.set("d", d);
    context_.set("head_dim", dh);
    context_.set("head", h);
    glDispatchCompute(column_tiles, tiles, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    glEndQuery(GL_TIME_ELAPSED);

    Matrix S(T, T), A(T, T);
    s_.download(S.data(), square_bytes);
    a_.download(A.data(), square_bytes);
    out.scores.push_back(std::move(S));
    out.weights.push_back(std::move(A));
    GLuint64 ns = 0;
    glGetQueryObjectui64v(timer_.id(), GL_QUERY_RESULT, &ns);
    gpu_ns += static_cast<double>(ns);
  }
  c_.download(out.context.data(), td_bytes);
  last_gpu_ms_ = gpu_ns * 1e-6;
  if (const GLenum err = glGetError(); err != GL_NO_ERROR)
    return Error{"OpenGL error 0x" + [&] { char b[16]; std::snprintf(b, sizeof b, "%04x", err); return std::string(b); }()};
  return out;
}

}  // namespace poslab::gpu

#version 430
// The naive attention kernel, kept only as the benchmark's baseline: one invocation per
// (query, head) walks every key three times (maximum, sum, output), d_h steps each time. On
// llvmpipe its loops pass 65,535 iterations from T = 512 on (d_h = 64) and are stopped early
// without an error, so its numbers there are wrong and its time flatters it: the benchmark
// reports its error next to its speed.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };
layout(std430, binding = 2) readonly buffer VBuf { float V[]; };
layout(std430, binding = 3) buffer CBuf { float C[]; };

uniform int T;
uniform int d;
uniform int heads;
uniform int head_dim;
uniform bool causal;
uniform float scale;

float score(int i, int j, int col0) {
  float s = 0.0;
  for (int c = 0; c < head_dim; ++c) s += Q[i * d + col0 + c] * K[j * d + col0 + c];
  return s * scale;
}

void main() {
  const int g = int(gl_GlobalInvocationID.x);
  if (g >= T * heads) return;
  const int i = g / heads, h = g % heads, col0 = h * head_dim;
  const int last = causal ? i : T - 1;
  float m = -1e30;
  for (int j = 0; j <= last; ++j) m = max(m, score(i, j, col0));
  float l = 0.0;
  for (int j = 0; j <= last; ++j) l += exp(score(i, j, col0) - m);
  for (int c = 0; c < head_dim; ++c) C[i * d + col0 + c] = 0.0;
  for (int j = 0; j <= last; ++j) {
    const float p = exp(score(i, j, col0) - m) / l;
    for (int c = 0; c < head_dim; ++c) C[i * d + col0 + c] += p * V[j * d + col0 + c];
  }
}

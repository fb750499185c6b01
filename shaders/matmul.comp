#version 430
// C = A·B for row-major A (M × K) and B (K × N): the projections x·W. A 16 × 16 tile of C per
// workgroup; A and B pass through shared memory 16 columns at a time, so an invocation loops
// K + K/16 times (well under llvmpipe's 65,535-iteration limit for any model width).
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer ABuf { float A[]; };
layout(std430, binding = 1) readonly buffer BBuf { float B[]; };
layout(std430, binding = 2) writeonly buffer CBuf { float C[]; };

uniform int M;
uniform int N;
uniform int K;

shared float a_tile[16][17];
shared float b_tile[16][17];

void main() {
  const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  const int row = int(gl_WorkGroupID.y) * 16 + ly;
  const int col = int(gl_WorkGroupID.x) * 16 + lx;
  float acc = 0.0;
  for (int k0 = 0; k0 < K; k0 += 16) {
    a_tile[ly][lx] = (row < M && k0 + lx < K) ? A[row * K + k0 + lx] : 0.0;
    b_tile[ly][lx] = (k0 + ly < K && col < N) ? B[(k0 + ly) * N + col] : 0.0;
    barrier();
    for (int k = 0; k < 16; ++k) acc += a_tile[ly][k] * b_tile[k][lx];
    barrier();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

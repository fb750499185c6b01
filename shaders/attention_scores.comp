#version 430
// S = Q_h K_hᵀ / √d_h with the masks, for one head: S[i][j] over a 16 × 16 tile of (query, key).
// Q and K tiles pass through shared memory in chunks of 16 dimensions, so an invocation loops
// d_h times at most (Mesa's llvmpipe ends an invocation's loops after 65,535 iterations).
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };      // T × d
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };      // T × d
layout(std430, binding = 2) readonly buffer Valid { uint key_valid[]; };  // T
layout(std430, binding = 3) writeonly buffer SBuf { float S[]; };     // T × T

uniform int T;
uniform int d;
uniform int head_dim;
uniform int head;
uniform bool causal;
uniform float scale;

shared float q_tile[16][17];
shared float k_tile[16][17];

void main() {
  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
  const int i = int(gl_WorkGroupID.y * 16u + ly);  // query
  const int j = int(gl_WorkGroupID.x * 16u + lx);  // key
  const int key_row = int(gl_WorkGroupID.x * 16u + ly);  // the key row this invocation loads
  const int col0 = head * head_dim;
  float acc = 0.0;
  for (int c0 = 0; c0 < head_dim; c0 += 16) {
    const int c = c0 + int(lx);
    q_tile[ly][lx] = (i < T && c < head_dim) ? Q[i * d + col0 + c] : 0.0;
    k_tile[ly][lx] = (key_row < T && c < head_dim) ? K[key_row * d + col0 + c] : 0.0;
    barrier();
    for (int k = 0; k < 16; ++k) acc += q_tile[ly][k] * k_tile[lx][k];
    barrier();
  }
  if (i >= T || j >= T) return;
  const bool masked = (causal && j > i) || key_valid[j] == 0u;
  S[i * T + j] = masked ? uintBitsToFloat(0xff800000u) : acc * scale;
}

#version 430
// Context = A_h V_h for one head: a 16 × 16 tile of (query, output column); A and V pass through
// shared memory in tiles of 16 keys, so an invocation loops T times in all.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 4) readonly buffer ABuf { float A[]; };   // T × T
layout(std430, binding = 5) readonly buffer VBuf { float V[]; };   // T × d
layout(std430, binding = 6) buffer CBuf { float C[]; };            // T × d

uniform int T;
uniform int d;
uniform int head_dim;
uniform int head;

shared float a_tile[16][17];
shared float v_tile[16][17];

void main() {
  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
  const int i = int(gl_WorkGroupID.y * 16u + ly);  // query
  const int c = int(gl_WorkGroupID.x * 16u + lx);  // column within the head
  const int col0 = head * head_dim;
  float acc = 0.0;
  for (int j0 = 0; j0 < T; j0 += 16) {
    const int ja = j0 + int(lx);   // key loaded into the A tile
    const int jv = j0 + int(ly);   // key loaded into the V tile
    a_tile[ly][lx] = (i < T && ja < T) ? A[i * T + ja] : 0.0;
    v_tile[ly][lx] = (jv < T && c < head_dim) ? V[jv * d + col0 + c] : 0.0;
    barrier();
    for (int k = 0; k < 16; ++k) acc += a_tile[ly][k] * v_tile[k][lx];
    barrier();
  }
  if (i < T && c < head_dim) C[i * d + col0 + c] = acc;
}

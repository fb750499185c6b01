#version 430
// Context = A_h V_h for one head (the path for heads wider than flash_attention.comp takes): a
// 16 × 16 tile of (query, output column); A and V pass through shared memory 16 keys at a time,
// so an invocation loops Tk + Tk/16 times in all.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer ABuf { float A[]; };   // Tq × Tk
layout(std430, binding = 1) readonly buffer VBuf { float V[]; };   // Tk × d
layout(std430, binding = 2) buffer CBuf { float C[]; };            // Tq × d

uniform int Tq;
uniform int Tk;
uniform int d;
uniform int head_dim;
uniform int head;

shared float a_tile[16][17];
shared float v_tile[16][17];

void main() {
  const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  const int i = int(gl_WorkGroupID.y) * 16 + ly;  // query
  const int c = int(gl_WorkGroupID.x) * 16 + lx;  // column within the head
  const int col0 = head * head_dim;
  float acc = 0.0;
  for (int j0 = 0; j0 < Tk; j0 += 16) {
    const int ja = j0 + lx;  // key loaded into the A tile
    const int jv = j0 + ly;  // key loaded into the V tile
    a_tile[ly][lx] = (i < Tq && ja < Tk) ? A[i * Tk + ja] : 0.0;
    v_tile[ly][lx] = (jv < Tk && c < head_dim) ? V[jv * d + col0 + c] : 0.0;
    barrier();
    for (int k = 0; k < 16; ++k) acc += a_tile[ly][k] * v_tile[k][lx];
    barrier();
  }
  if (i < Tq && c < head_dim) C[i * d + col0 + c] = acc;
}

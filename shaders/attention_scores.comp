#version 430
// One head's scores S = Q_h K_hᵀ/√d_h + bias with the masks (−∞), over a 16 × 16 tile of
// (query, key). With `normalize`, also the weights A = e^(S − m*)/l* from the row statistics
// flash_combine.comp found, so no second reduction is needed. Q and K tiles pass through shared
// memory 16 dimensions at a time: an invocation loops about d_h times in all.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };          // Tq × d
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };          // Tk × d
layout(std430, binding = 2) readonly buffer Valid { uint key_valid[]; };  // Tk
layout(std430, binding = 3) readonly buffer Bias { float rel_bias[]; };   // heads × (Tq + Tk − 1)
layout(std430, binding = 4) readonly buffer Stats { vec2 stats[]; };      // heads × Tq: (m*, l*)
layout(std430, binding = 5) writeonly buffer SBuf { float S[]; };         // Tq × Tk
layout(std430, binding = 6) writeonly buffer ABuf { float A[]; };         // Tq × Tk

uniform int Tq;
uniform int Tk;
uniform int d;
uniform int head_dim;
uniform int head;
uniform bool causal;
uniform bool has_bias;
uniform bool normalize;
uniform float scale;

shared float q_tile[16][17];
shared float k_tile[16][17];

const float NEG_INF = uintBitsToFloat(0xff800000u);

void main() {
  const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  const int i = int(gl_WorkGroupID.y) * 16 + ly;        // query
  const int j = int(gl_WorkGroupID.x) * 16 + lx;        // key
  const int key_row = int(gl_WorkGroupID.x) * 16 + ly;  // the key row this invocation loads
  const int col0 = head * head_dim;
  float acc = 0.0;
  for (int c0 = 0; c0 < head_dim; c0 += 16) {
    const int c = c0 + lx;
    q_tile[ly][lx] = (i < Tq && c < head_dim) ? Q[i * d + col0 + c] : 0.0;
    k_tile[ly][lx] = (key_row < Tk && c < head_dim) ? K[key_row * d + col0 + c] : 0.0;
    barrier();
    for (int k = 0; k < 16; ++k) acc += q_tile[ly][k] * k_tile[lx][k];
    barrier();
  }
  if (i >= Tq || j >= Tk) return;
  const bool masked = (causal && j > i) || key_valid[j] == 0u;
  const float s = masked ? NEG_INF : acc * scale + (has_bias ? rel_bias[head * (Tq + Tk - 1) + j - i + Tq - 1] : 0.0);
  S[i * Tk + j] = s;
  if (normalize) {
    const vec2 ml = stats[head * Tq + i];
    A[i * Tk + j] = (masked || ml.y <= 0.0) ? 0.0 : exp(s - ml.x) / ml.y;
  }
}

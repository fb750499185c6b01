#version 430
// Attention outputs in the FlashAttention manner, for head dims up to 128. A workgroup takes 16
// queries of one head and one split of the keys; it walks that split in tiles of 16 keys through
// shared memory, keeping a running maximum m, sum l and accumulator o per query (online
// softmax). Splits are at most 1024 keys, so no invocation loops over the whole sequence: about
// 2·d_h + 40 iterations per tile, 64 tiles at most (llvmpipe stops loops after 65,535).
// flash_combine.comp merges the splits.
layout(local_size_x = 16, local_size_y = 16) in;

#define DMAX 128
#define ACC (DMAX / 16)

layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };         // Tq × d
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };         // Tk × d
layout(std430, binding = 2) readonly buffer VBuf { float V[]; };         // Tk × d
layout(std430, binding = 3) readonly buffer Valid { uint key_valid[]; }; // Tk
layout(std430, binding = 4) readonly buffer Bias { float rel_bias[]; };  // heads × (Tq + Tk − 1)
layout(std430, binding = 5) writeonly buffer PartialO { float partial_o[]; };  // splits × heads × Tq × d_h
layout(std430, binding = 6) writeonly buffer PartialML { vec2 partial_ml[]; }; // splits × heads × Tq

uniform int Tq;
uniform int Tk;
uniform int d;
uniform int heads;
uniform int head_dim;
uniform bool causal;
uniform bool has_bias;
uniform float scale;
uniform int keys_per_split;

shared float q_s[16][DMAX];
shared float k_s[16][DMAX + 1];
shared float v_s[16][DMAX];
shared float s_s[16][17];

const float NEG_INF = uintBitsToFloat(0xff800000u);

void main() {
  const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
  const int block = int(gl_WorkGroupID.x);
  const int split = int(gl_WorkGroupID.y);
  const int h = int(gl_WorkGroupID.z);
  const int i = block * 16 + ly;
  const int col0 = h * head_dim;

  for (int c = lx; c < head_dim; c += 16) q_s[ly][c] = i < Tq ? Q[i * d + col0 + c] : 0.0;

  float m = NEG_INF, l = 0.0;
  float acc[ACC];
  for (int a = 0; a < ACC; ++a) acc[a] = 0.0;

  const int split_begin = split * keys_per_split;
  const int split_end = min(Tk, split_begin + keys_per_split);
  // With the causal mask no query of this block sees keys past its last row: skip those tiles.
  const int walk_end = causal ? min(split_end, block * 16 + 16) : split_end;
  for (int j0 = split_begin; j0 < walk_end; j0 += 16) {
    barrier();  // the previous tile is no longer read
    const int jr = j0 + ly;
    for (int c = lx; c < head_dim; c += 16) {
      k_s[ly][c] = jr < Tk ? K[jr * d + col0 + c] : 0.0;
      v_s[ly][c] = jr < Tk ? V[jr * d + col0 + c] : 0.0;
    }
    barrier();
    const int j = j0 + lx;
    float s = 0.0;
    for (int c = 0; c < head_dim; ++c) s += q_s[ly][c] * k_s[lx][c];
    const bool masked = j >= split_end || key_valid[min(j, Tk - 1)] == 0u || (causal && j > i);
    s_s[ly][lx] = masked ? NEG_INF : s * scale + (has_bias ? rel_bias[h * (Tq + Tk - 1) + j - i + Tq - 1] : 0.0);
    barrier();
    float tile_max = NEG_INF;
    for (int k = 0; k < 16; ++k) tile_max = max(tile_max, s_s[ly][k]);
    const float m_new = max(m, tile_max);
    if (m_new != NEG_INF) {
      const float correction = m == NEG_INF ? 0.0 : exp(m - m_new);
      l *= correction;
      for (int a = 0; a < ACC; ++a) acc[a] *= correction;
      for (int k = 0; k < 16; ++k) {
        const float sk = s_s[ly][k];
        const float p = sk == NEG_INF ? 0.0 : exp(sk - m_new);
        l += p;
        for (int a = 0; a < ACC; ++a) {
          const int c = lx + 16 * a;
          if (c < head_dim) acc[a] += p * v_s[k][c];
        }
      }
      m = m_new;
    }
  }
  if (i >= Tq) return;
  const int row = (split * heads + h) * Tq + i;
  for (int a = 0; a < ACC; ++a) {
    const int c = lx + 16 * a;
    if (c < head_dim) partial_o[row * head_dim + c] = acc[a];
  }
  if (lx == 0) partial_ml[row] = vec2(m, l);
}

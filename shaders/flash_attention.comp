#version 430
// Attention outputs in the FlashAttention manner, for head dims up to 128. A workgroup of 64
// invocations takes 64 queries of one head (one query each, its q and its output accumulator in
// registers) and one split of the keys; it walks the split in tiles of 16 keys that the
// workgroup loads together into shared memory, keeping a running maximum m and sum l per query
// (online softmax). Every invocation reads the same K and V element at the same time, which
// SIMD CPUs (llvmpipe) and GPUs both serve as a broadcast. The host sizes the splits so that an
// invocation loops at most about 60,000 times (llvmpipe stops loops after 65,535);
// flash_combine.comp merges the splits.
layout(local_size_x = 64) in;

#define DMAX 128
#define BK 16

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

shared float k_s[BK][DMAX];
shared float v_s[BK][DMAX];

const float NEG_INF = uintBitsToFloat(0xff800000u);

void main() {
  const int lane = int(gl_LocalInvocationID.x);
  const int block = int(gl_WorkGroupID.x);
  const int split = int(gl_WorkGroupID.y);
  const int h = int(gl_WorkGroupID.z);
  const int i = block * 64 + lane;
  const int col0 = h * head_dim;

  float q[DMAX];
  float acc[DMAX];
  for (int c = 0; c < head_dim; ++c) {
    q[c] = i < Tq ? Q[i * d + col0 + c] * scale : 0.0;
    acc[c] = 0.0;
  }
  float m = NEG_INF, l = 0.0;

  const int split_begin = split * keys_per_split;
  const int split_end = min(Tk, split_begin + keys_per_split);
  // With the causal mask no query of this block sees keys past its last row: skip those tiles.
  const int walk_end = causal ? min(split_end, block * 64 + 64) : split_end;
  for (int j0 = split_begin; j0 < walk_end; j0 += BK) {
    barrier();  // the previous tile is no longer read
    for (int e = lane; e < BK * head_dim; e += 64) {
      const int r = e / head_dim, c = e - r * head_dim;
      const int j = j0 + r;
      k_s[r][c] = j < Tk ? K[j * d + col0 + c] : 0.0;
      v_s[r][c] = j < Tk ? V[j * d + col0 + c] : 0.0;
    }
    barrier();
    float s[BK];
    float tile_max = NEG_INF;
    for (int r = 0; r < BK; ++r) {
      const int j = j0 + r;
      float dot = 0.0;
      for (int c = 0; c < head_dim; ++c) dot += q[c] * k_s[r][c];
      const bool masked = j >= split_end || key_valid[min(j, Tk - 1)] == 0u || (causal && j > i);
      s[r] = masked ? NEG_INF : dot + (has_bias ? rel_bias[h * (Tq + Tk - 1) + j - i + Tq - 1] : 0.0);
      tile_max = max(tile_max, s[r]);
    }
    const float m_new = max(m, tile_max);
    if (m_new == NEG_INF) continue;  // nothing visible yet for this query
    const float correction = m == NEG_INF ? 0.0 : exp(m - m_new);
    l *= correction;
    for (int c = 0; c < head_dim; ++c) acc[c] *= correction;
    for (int r = 0; r < BK; ++r) {
      const float p = s[r] == NEG_INF ? 0.0 : exp(s[r] - m_new);
      l += p;
      for (int c = 0; c < head_dim; ++c) acc[c] += p * v_s[r][c];
    }
    m = m_new;
  }
  if (i >= Tq) return;
  const int row = (split * heads + h) * Tq + i;
  for (int c = 0; c < head_dim; ++c) partial_o[row * head_dim + c] = acc[c];
  partial_ml[row] = vec2(m, l);
}

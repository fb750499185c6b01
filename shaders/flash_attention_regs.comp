#version 430
// Attention outputs in the FlashAttention manner with everything a query needs in registers:
// the host compiles one variant per head width (HEAD_DIM, a multiple of 4, is #defined in front
// of this text), so q and the output accumulator are vec4 arrays whose loops have constant
// bounds and unroll, and no array is indexed by a run-time value. There is no shared memory and
// no barrier: each invocation streams its keys and values as vec4 straight from the storage
// buffers (the same addresses across the workgroup, which SIMD hardware serves as a broadcast).
// Keys come four at a time, so the online softmax rescales once per four keys. Output as
// flash_attention.comp's: per split, the unnormalised context and (m, l), merged by
// flash_combine.comp. On llvmpipe this measured several times the shared-memory kernel
// (bench/RESULTS.md).
layout(local_size_x = 64) in;

#define D4 (HEAD_DIM / 4)

layout(std430, binding = 0) readonly buffer QBuf { vec4 Q[]; };          // Tq × d/4
layout(std430, binding = 1) readonly buffer KBuf { vec4 K[]; };          // Tk × d/4
layout(std430, binding = 2) readonly buffer VBuf { vec4 V[]; };          // Tk × d/4
layout(std430, binding = 3) readonly buffer Valid { uint key_valid[]; }; // Tk
layout(std430, binding = 4) readonly buffer Bias { float rel_bias[]; };  // heads × (Tq + Tk − 1)
layout(std430, binding = 5) writeonly buffer PartialO { vec4 partial_o[]; };   // splits × heads × Tq × d_h/4
layout(std430, binding = 6) writeonly buffer PartialML { vec2 partial_ml[]; }; // splits × heads × Tq

uniform int Tq;
uniform int Tk;
uniform int d;
uniform int heads;
uniform bool causal;
uniform bool has_bias;
uniform float scale;
uniform int keys_per_split;

const float NEG_INF = uintBitsToFloat(0xff800000u);

// The score of key j for query i, −∞ where masked.
float score(const vec4 q[D4], int i, int j, int h, int split_end) {
  if (j >= split_end || key_valid[j] == 0u || (causal && j > i)) return NEG_INF;
  const int k0 = j * (d / 4) + h * D4;
  float dot_qk = 0.0;
  for (int c = 0; c < D4; ++c) dot_qk += dot(q[c], K[k0 + c]);
  return dot_qk + (has_bias ? rel_bias[h * (Tq + Tk - 1) + j - i + Tq - 1] : 0.0);
}

void main() {
  const int i = int(gl_GlobalInvocationID.x);
  const int split = int(gl_WorkGroupID.y);
  const int h = int(gl_WorkGroupID.z);
  const int qi = min(i, Tq - 1);
  vec4 q[D4];
  vec4 acc[D4];
  for (int c = 0; c < D4; ++c) {
    q[c] = Q[qi * (d / 4) + h * D4 + c] * scale;
    acc[c] = vec4(0.0);
  }
  float m = NEG_INF, l = 0.0;
  const int split_begin = split * keys_per_split;
  const int split_end = min(Tk, split_begin + keys_per_split);
  // With the causal mask no query of this workgroup sees keys past its last row.
  const int walk_end = causal ? min(split_end, int(gl_WorkGroupID.x) * 64 + 64) : split_end;
  for (int j0 = split_begin; j0 < walk_end; j0 += 4) {
    const vec4 s = vec4(score(q, qi, j0, h, walk_end), score(q, qi, j0 + 1, h, walk_end),
                        score(q, qi, j0 + 2, h, walk_end), score(q, qi, j0 + 3, h, walk_end));
    const float m_new = max(m, max(max(s.x, s.y), max(s.z, s.w)));
    if (m_new == NEG_INF) continue;  // nothing visible yet for this query
    const float correction = m == NEG_INF ? 0.0 : exp(m - m_new);
    const vec4 p = vec4(s.x == NEG_INF ? 0.0 : exp(s.x - m_new), s.y == NEG_INF ? 0.0 : exp(s.y - m_new),
                        s.z == NEG_INF ? 0.0 : exp(s.z - m_new), s.w == NEG_INF ? 0.0 : exp(s.w - m_new));
    l = l * correction + p.x + p.y + p.z + p.w;
    for (int c = 0; c < D4; ++c) {
      vec4 a = acc[c] * correction;
      // Keys past the end have p = 0; their rows are clamped so that nothing is read out of range.
      a += p.x * V[min(j0, Tk - 1) * (d / 4) + h * D4 + c];
      a += p.y * V[min(j0 + 1, Tk - 1) * (d / 4) + h * D4 + c];
      a += p.z * V[min(j0 + 2, Tk - 1) * (d / 4) + h * D4 + c];
      a += p.w * V[min(j0 + 3, Tk - 1) * (d / 4) + h * D4 + c];
      acc[c] = a;
    }
    m = m_new;
  }
  if (i >= Tq) return;
  const int row = (split * heads + h) * Tq + i;
  for (int c = 0; c < D4; ++c) partial_o[row * D4 + c] = acc[c];
  partial_ml[row] = vec2(m, l);
}

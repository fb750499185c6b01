#version 430
// Merges the key splits of flash_attention.comp: for each (query, head) the final maximum m*
// and sum l*, and each context value Σₛ oₛ·e^(mₛ−m*) / l*. One invocation per (query, column).
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer PartialO { float partial_o[]; };  // splits × heads × Tq × d_h
layout(std430, binding = 1) readonly buffer PartialML { vec2 partial_ml[]; }; // splits × heads × Tq
layout(std430, binding = 2) writeonly buffer Context { float C[]; };          // Tq × d
layout(std430, binding = 3) writeonly buffer Stats { vec2 stats[]; };          // heads × Tq: (m*, l*)

uniform int Tq;
uniform int d;
uniform int heads;
uniform int head_dim;
uniform int splits;

const float NEG_INF = uintBitsToFloat(0xff800000u);

void main() {
  const int g = int(gl_GlobalInvocationID.x);
  const int h = int(gl_GlobalInvocationID.y);
  if (g >= Tq * head_dim) return;
  const int i = g / head_dim, c = g % head_dim;
  float m = NEG_INF;
  for (int s = 0; s < splits; ++s) m = max(m, partial_ml[(s * heads + h) * Tq + i].x);
  float l = 0.0, o = 0.0;
  if (m != NEG_INF)
    for (int s = 0; s < splits; ++s) {
      const int row = (s * heads + h) * Tq + i;
      const vec2 ml = partial_ml[row];
      if (ml.x == NEG_INF) continue;
      const float w = exp(ml.x - m);
      l += ml.y * w;
      o += partial_o[row * head_dim + c] * w;
    }
  // A query whose keys are all masked gets a zero context rather than NaN.
  C[i * d + h * head_dim + c] = l > 0.0 ? o / l : 0.0;
  if (c == 0) stats[h * Tq + i] = vec2(m, l);
}

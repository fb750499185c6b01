#version 430
// RoPE in place on q or k (T × d, heads side by side): one invocation per (token, head, pair).
// The frequencies (θˣ, θʸ) of each head's pairs come from a buffer of doubles, so any base, any
// context scaling and 2-D RoPE work unchanged; the angle x·θˣ + y·θʸ is formed and reduced
// modulo 2π in double precision before the float sin and cos (in float, p·θ is wrong in the
// fourth digit by p ≈ 4096).
layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer XBuf { float X[]; };
layout(std430, binding = 1) readonly buffer Thetas { dvec2 thetas[]; };      // heads × pairs: (θˣ, θʸ)
layout(std430, binding = 2) readonly buffer Positions { ivec2 positions[]; };  // T: (x, y)

uniform int T;
uniform int d;
uniform int heads;
uniform int head_dim;
uniform int pairs;        // rotated pairs per head
uniform bool half_style;  // rotate-half pairs (i, i + pairs); otherwise interleaved (2i, 2i + 1)
uniform float scale;      // multiplies the rotated values (YaRN's temperature; 1 otherwise)

const double TWO_PI = 6.28318530717958647692LF;

void main() {
  const int g = int(gl_GlobalInvocationID.x);
  if (g >= T * heads * pairs) return;
  const int t = g / (heads * pairs);
  const int h = (g / pairs) % heads;
  const int i = g % pairs;
  const dvec2 theta = thetas[h * pairs + i];
  const ivec2 p = positions[t];
  double angle = double(p.x) * theta.x + double(p.y) * theta.y;
  angle -= TWO_PI * floor(angle / TWO_PI);
  const float c = cos(float(angle)), s = sin(float(angle));
  const int base = t * d + h * head_dim;
  const int a = base + (half_style ? i : 2 * i);
  const int b = base + (half_style ? i + pairs : 2 * i + 1);
  const float x = X[a], y = X[b];
  X[a] = (x * c - y * s) * scale;
  X[b] = (x * s + y * c) * scale;
}

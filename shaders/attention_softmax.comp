#version 430
// Row softmax of one head's S (the path for heads wider than flash_attention.comp takes): one
// workgroup per query row; each invocation strides over the keys (Tk / 256 steps), then the
// workgroup reduces the maximum and the sum in shared memory.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer SBuf { float S[]; };   // Tq × Tk
layout(std430, binding = 1) writeonly buffer ABuf { float A[]; };  // Tq × Tk

uniform int Tk;

shared float partial[256];

const float NEG_INF = uintBitsToFloat(0xff800000u);

void main() {
  const int i = int(gl_WorkGroupID.x);
  const uint lane = gl_LocalInvocationID.x;
  const int row = i * Tk;

  float m = NEG_INF;
  for (int j = int(lane); j < Tk; j += 256) m = max(m, S[row + j]);
  partial[lane] = m;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (lane < s) partial[lane] = max(partial[lane], partial[lane + s]);
    barrier();
  }
  const float row_max = partial[0];
  barrier();

  float sum = 0.0;
  if (row_max != NEG_INF)
    for (int j = int(lane); j < Tk; j += 256) {
      const float s = S[row + j];
      sum += s == NEG_INF ? 0.0 : exp(s - row_max);
    }
  partial[lane] = sum;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (lane < s) partial[lane] += partial[lane + s];
    barrier();
  }
  const float total = partial[0];

  for (int j = int(lane); j < Tk; j += 256) {
    const float s = S[row + j];
    // A row whose keys are all masked gets no weights at all rather than NaN.
    A[row + j] = (row_max == NEG_INF || s == NEG_INF) ? 0.0 : exp(s - row_max) / total;
  }
}

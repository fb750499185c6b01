#pragma once
// IEEE 754 binary16 ("half", NumPy's float16, safetensors' F16) to float: exact for every value,
// subnormals included (mantissa·2⁻²⁴); infinities and NaN as themselves. The readers that refuse
// non-finite values check the exponent first; the model's weights convert through the processor's
// F16C where it has one (core/model/checkpoint.cpp) and fall back to this.
//
// And a float's bits rounded to the nearest BF16 (the other 16-bit float), the one rule that every
// rounding of PosLab's BF16 activations follows.
#include <cmath>
#include <cstdint>
#include <limits>

namespace poslab {

inline float half_to_float(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  float magnitude = 0.0f;
  if (exponent == 0x1F) magnitude = mantissa != 0 ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else if (exponent == 0) magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  return (h & 0x8000) != 0 ? -magnitude : magnitude;
}

// A float's bits (or a vector of them, in GCC's vector extensions) rounded in place to the nearest
// BF16, ties to even, as PyTorch's float → bfloat16 does: the top 16 bits are the BF16 value, the
// low 16 zero. A NaN is kept as it is: the rounding's carry could make it an infinity or a zero.
// In place, since a 64-byte vector returned by value changes the ABI where AVX-512 is off.
template <typename Bits>
inline void round_bits_to_bf16(Bits& b) {
  const Bits rounded = (b + 0x7FFFu + ((b >> 16) & 1u)) & 0xFFFF0000u;
  b = (b & 0x7FFFFFFFu) > 0x7F800000u ? b : rounded;
}

}  // namespace poslab

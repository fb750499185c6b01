#pragma once
// IEEE 754 binary16 ("half", NumPy's float16, safetensors' F16) to float: exact for every value,
// subnormals included (mantissa·2⁻²⁴); infinities and NaN as themselves. The readers that refuse
// non-finite values check the exponent first; the model's weights convert through the processor's
// F16C where it has one (core/model/checkpoint.cpp) and fall back to this.
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

}  // namespace poslab

// plugins/cpu_backend/half.h — float16 and bfloat16 as storage types: the CPU backend computes
// them in float32 (widen on load, round to nearest even on store).
#pragma once
#include <cstdint>
#include <cstring>

#include "ge/sdk/tensor.h"

namespace ge::cpu {

/// IEEE 754 binary16, stored as its bit pattern.
struct half {
  uint16_t bits;
};
/// bfloat16: the upper 16 bits of a float32.
struct bfloat16 {
  uint16_t bits;
};

inline float to_float(half h) { return half_to_float(h.bits); }
inline half to_half(float f) { return half{float_to_half(f)}; }

inline float to_float(bfloat16 b) {
  const uint32_t u = static_cast<uint32_t>(b.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
/// Round to nearest even; a NaN stays a (quiet) NaN rather than rounding into infinity.
inline bfloat16 to_bfloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bfloat16{static_cast<uint16_t>((u >> 16) | 0x40u)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return bfloat16{static_cast<uint16_t>(u >> 16)};
}

}  // namespace ge::cpu

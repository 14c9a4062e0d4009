// plugins/cpu_backend/vecmath.h — float32 transcendental functions over arrays, vectorized with
// AVX-512 where the CPU has it (chosen once at run time), scalar <cmath> otherwise. Every
// element of an array goes through the same code (tails use masked loads), so a value does not
// depend on its position or on how the caller chunked the array: the fused and the unfused
// kernels give equal bits.
#pragma once
#include <cstdint>

namespace ge::cpu::vec {

void exp(const float* x, float* y, int64_t n);
void log(const float* x, float* y, int64_t n);
void sigmoid(const float* x, float* y, int64_t n);  ///< 1 / (1 + exp(-x))
void tanh(const float* x, float* y, int64_t n);
void erf(const float* x, float* y, int64_t n);
/// IEEE binary16 <-> float32 (round to nearest even), with the AVX-512 F16C conversions.
void half_to_float(const uint16_t* x, float* y, int64_t n);
void float_to_half(const float* x, uint16_t* y, int64_t n);
/// True when the AVX-512 code runs (for benchmark labels).
bool has_avx512();

}  // namespace ge::cpu::vec

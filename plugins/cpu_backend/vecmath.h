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
/// o[j] = c[j] ? x[j * sx] : y[j * sy] on 4-byte elements, sx and sy 0 (a broadcast scalar)
/// or 1; c holds 0/1 bytes. Returns false (nothing written) when the CPU lacks AVX-512.
bool select32(const bool* c, const uint32_t* x, int64_t sx, const uint32_t* y, int64_t sy, uint32_t* o, int64_t n);
/// y = softmax(scale · x) over one contiguous row of n > 0 elements (y may be x): with t = scale ·
/// x, exp(t - max t) / sum, a shifted exp below -87.3 taken as 0 (scale · x rounds once, as a
/// separate multiply would). Returns false (nothing written) when the CPU lacks AVX-512.
bool softmax(const float* x, float* y, int64_t n, float scale = 1.f);
/// out[i * out_stride + j] = in[j * in_stride + i] for i < ni, j < nj (ni, nj in 1..16): a block
/// of 4-byte words transposed in registers, reading nj rows of ni words and writing ni rows of
/// nj words (strides in words). Returns false (nothing written) when the CPU lacks AVX-512 or a
/// size is out of range.
bool transpose32(const uint32_t* in, int64_t in_stride, uint32_t* out, int64_t out_stride, int ni, int nj);
/// True when the AVX-512 code runs (for benchmark labels).
bool has_avx512();

}  // namespace ge::cpu::vec

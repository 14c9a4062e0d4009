// plugins/cpu_backend/vecmath.cc — the AVX-512 and scalar bodies of vecmath.h.
//
// exp and log are the Cephes single-precision algorithms (S. Moshier, Cephes Math Library,
// expf.c / logf.c: Cody-Waite range reduction and minimax polynomials, ~1 ulp), with AVX-512's
// scalef/getexp/getmant doing the exponent work. tanh: the rational minimax approximation
// x·P(x²)/Q(x²) on [-9, 9] of Eigen's generic_fast_tanh_float (Eigen/src/Core/MathFunctionsImpl.h;
// ONNX Runtime's MLAS tanh.cpp uses the same), ±1 beyond, dividing by rcp14 and a Newton step.
// erf: ONNX Runtime's MLAS erf (a polynomial below 0.921875, 1 - exp(-polynomial) above; 1 ulp).
// tests/cpu_backend/test_vecmath.cc bounds every function's error against libm.
#include "vecmath.h"

#include <immintrin.h>

#include <cmath>

#include "ge/sdk/tensor.h"

// GCC 12 reports its own _mm512_undefined_ps() in the masked intrinsics as maybe-uninitialized
// (a false positive); returning __m512 from the target-attributed helpers is not an ABI
// boundary since they are inlined into the AVX-512 loops.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wpsabi"

#define GE_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))

namespace ge::cpu::vec {
namespace {

// Cephes expf / logf constants.
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kExpP[] = {1.9875691500E-4f, 1.3981999507E-3f, 8.3334519073E-3f,
                           4.1665795894E-2f, 1.6666665459E-1f, 5.0000001201E-1f};
constexpr float kLogP[] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                           -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                           2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
// Eigen's generic_fast_tanh_float (the same 13/6 rational as ONNX Runtime's MLAS tanh.cpp):
// tanh(x) = x P(x^2) / Q(x^2) on [-9, 9]; coefficients from the highest power down.
constexpr float kTanhP[] = {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                            5.12229709037114e-08f,  1.48572235717979e-05f, 6.37261928875436e-04f,
                            4.89352455891786e-03f};
constexpr float kTanhQ[] = {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                            4.89352518554385e-03f};
// ONNX Runtime's MLAS erf (onnxruntime/core/mlas/lib/erf.cpp, MlasErfConstants): for
// |x| <= 0.921875, erf(x) = x + x·P(x²); above, erf(|x|) = 1 - exp(-(|x| + |x|·Q(|x|))) with |x|
// clamped at 3.925 and its own exp polynomial; faithfully rounded (1 ulp). Coefficients from the
// highest power down.
constexpr float kErfSmall[] = {-5.99104969e-4f, 4.99339588e-3f, -2.67667342e-2f, 1.12818025e-1f, -3.76124859e-1f,
                               1.28379151e-1f};
constexpr float kErfBig[] = {1.72948930e-5f,  -3.83208680e-4f, 3.88393435e-3f, -2.42545605e-2f,
                             1.06777847e-1f,  6.34846687e-1f,  1.28717512e-1f};
constexpr float kErfExp[] = {1.38319808e-3f, 8.37550033e-3f, 4.16689515e-2f, 1.66664466e-1f,
                             4.99999851e-1f, 1.0f,           1.0f};

GE_AVX512 inline __m512 v(float c) { return _mm512_set1_ps(c); }

template <size_t N>
GE_AVX512 inline __m512 horner(__m512 x, const float (&c)[N]) {
  __m512 p = v(c[0]);
  for (size_t i = 1; i < N; ++i) p = _mm512_fmadd_ps(p, x, v(c[i]));
  return p;
}

GE_AVX512 inline __m512 exp16(__m512 x) {
  // Clamp so that n stays finite; beyond it scalef over/underflows to inf/0 as exp does. The
  // clamp constant is the first operand so that a NaN x passes through (maxps returns the
  // second operand on NaN).
  x = _mm512_min_ps(v(100.f), _mm512_max_ps(v(-110.f), x));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, v(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, v(kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, v(kLn2Lo), r);
  const __m512 p = horner(r, kExpP);
  const __m512 y = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, v(1.f)));
  return _mm512_scalef_ps(y, n);
}

GE_AVX512 inline __m512 log16(__m512 x) {
  __m512 e = _mm512_getexp_ps(x);
  __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);  // x = m 2^e, m in [1, 2)
  const __mmask16 big = _mm512_cmp_ps_mask(m, v(1.41421356237f), _CMP_GT_OQ);
  m = _mm512_mask_mul_ps(m, big, m, v(0.5f));
  e = _mm512_mask_add_ps(e, big, e, v(1.f));
  const __m512 f = _mm512_sub_ps(m, v(1.f));
  const __m512 z = _mm512_mul_ps(f, f);
  __m512 y = _mm512_mul_ps(_mm512_mul_ps(horner(f, kLogP), f), z);
  y = _mm512_fmadd_ps(e, v(kLn2Lo), y);
  y = _mm512_fnmadd_ps(z, v(0.5f), y);
  __m512 r = _mm512_add_ps(f, y);
  r = _mm512_fmadd_ps(e, v(kLn2Hi), r);
  // log(+inf) = inf, log(0) = -inf, log(x < 0) = NaN, log(NaN) = NaN.
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, v(INFINITY), _CMP_EQ_OQ), v(INFINITY));
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, v(0.f), _CMP_EQ_OQ), v(-INFINITY));
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, v(0.f), _CMP_LT_OQ), v(NAN));
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

GE_AVX512 inline __m512 sigmoid16(__m512 x) {
  return _mm512_div_ps(v(1.f), _mm512_add_ps(v(1.f), exp16(_mm512_sub_ps(v(0.f), x))));
}

GE_AVX512 inline __m512 abs16(__m512 x) { return _mm512_andnot_ps(v(-0.f), x); }
GE_AVX512 inline __m512 with_sign_of(__m512 mag, __m512 x) {
  return _mm512_or_ps(mag, _mm512_and_ps(x, v(-0.f)));
}

/// 1/d by rcp14 (relative error < 2^-14) and one Newton step (< 2^-28): cheaper than vdivps. d
/// must be finite and nonzero.
GE_AVX512 inline __m512 recip16(__m512 d) {
  const __m512 r0 = _mm512_rcp14_ps(d);
  return _mm512_mul_ps(r0, _mm512_fnmadd_ps(d, r0, v(2.f)));
}

GE_AVX512 inline __m512 tanh16(__m512 x) {
  // Clamped to [-9, 9] (a NaN passes: min/max return their second operand on NaN); Q > 0 there.
  const __m512 c = _mm512_min_ps(v(9.f), _mm512_max_ps(v(-9.f), x));
  const __m512 z = _mm512_mul_ps(c, c);
  const __m512 y = _mm512_mul_ps(_mm512_mul_ps(horner(z, kTanhP), c), recip16(horner(z, kTanhQ)));
  // tanh rounds to ±1 in float from |x| ≈ 9.01 on; the rational at the clamp is 1 ulp below.
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(abs16(x), v(9.1f), _CMP_GE_OQ), with_sign_of(v(1.f), x));
}

GE_AVX512 inline __m512 erf16(__m512 x) {
  const __m512 a = abs16(x);
  // |x| <= 0.921875: |x| + |x|·P(x²) (a NaN stays NaN on this side of the blend).
  const __m512 small = _mm512_fmadd_ps(horner(_mm512_mul_ps(a, a), kErfSmall), a, a);
  // Above: 1 - exp(-t), t = |x| + |x|·Q(|x|), |x| clamped at 3.925 (erf is 1 in float beyond).
  const __m512 ab = _mm512_min_ps(v(3.925f), a);
  const __m512 t = _mm512_max_ps(v(-88.3762626647949f), _mm512_sub_ps(v(0.f), _mm512_fmadd_ps(horner(ab, kErfBig), ab, ab)));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(t, v(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 f = _mm512_fmadd_ps(n, v(-6.93145752e-1f), t);
  f = _mm512_fmadd_ps(n, v(-1.42860677e-6f), f);
  const __m512 big = _mm512_sub_ps(v(1.f), _mm512_scalef_ps(horner(f, kErfExp), n));
  const __m512 r = _mm512_mask_mov_ps(small, _mm512_cmp_ps_mask(a, v(0.921875f), _CMP_GT_OQ), big);
  return with_sign_of(r, x);
}

// One loop per function (not a template over a lambda: a lambda cannot carry the target
// attribute through its function-pointer conversion). Tails use a masked load and store.
#define GE_MAP16(name, f16)                                                          \
  GE_AVX512 void name(const float* x, float* y, int64_t n) {                         \
    int64_t i = 0;                                                                   \
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, f16(_mm512_loadu_ps(x + i))); \
    if (i < n) {                                                                     \
      const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);              \
      _mm512_mask_storeu_ps(y + i, m, f16(_mm512_maskz_loadu_ps(m, x + i)));         \
    }                                                                                \
  }
GE_MAP16(exp_avx512, exp16)
GE_MAP16(log_avx512, log16)
GE_MAP16(sigmoid_avx512, sigmoid16)
GE_MAP16(tanh_avx512, tanh16)
GE_MAP16(erf_avx512, erf16)
#undef GE_MAP16

GE_AVX512 void half_to_float_avx512(const uint16_t* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i))));
  for (; i < n; ++i) y[i] = ge::half_to_float(x[i]);
}
GE_AVX512 void float_to_half_avx512(const float* x, uint16_t* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i),
                        _mm512_cvtps_ph(_mm512_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; i < n; ++i) y[i] = ge::float_to_half(x[i]);
}

GE_AVX512 void select32_avx512(const bool* c, const uint32_t* x, int64_t sx, const uint32_t* y, int64_t sy,
                               uint32_t* o, int64_t n) {
  const __m512i xs = _mm512_set1_epi32(static_cast<int>(x[0])), ys = _mm512_set1_epi32(static_cast<int>(y[0]));
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __mmask16 m = _mm_test_epi8_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c + i)), _mm_set1_epi8(1));
    const __m512i xv = sx ? _mm512_loadu_si512(x + i) : xs;
    const __m512i yv = sy ? _mm512_loadu_si512(y + i) : ys;
    _mm512_storeu_si512(o + i, _mm512_mask_blend_epi32(m, yv, xv));
  }
  for (; i < n; ++i) o[i] = c[i] ? x[i * sx] : y[i * sy];
}

// softmax over one contiguous row (of scale · x): max, exp(x - max) stored with its sum, 1/sum — three passes
// over a row that stays in L1, 16 lanes each with a masked tail (no scalar remainder: rows of
// odd length, a ViT's 197 tokens, cost no more per element than others). Below -87.3 the
// shifted exp is 0, not a subnormal (as the scalar softmax and ge.Attention do); a NaN passes.
// Horizontal max / sum through memory (GCC 12's _mm512_reduce_* trip -Werror=uninitialized).
GE_AVX512 inline float hmax16(__m512 a) {
  alignas(64) float t[16];
  _mm512_store_ps(t, a);
  float r = t[0];
  for (int j = 1; j < 16; ++j) r = t[j] > r ? t[j] : r;
  return r;
}
GE_AVX512 inline float hsum16(__m512 a) {
  alignas(64) float t[16];
  _mm512_store_ps(t, a);
  float r = 0;
  for (int j = 0; j < 16; ++j) r += t[j];
  return r;
}

GE_AVX512 void softmax_avx512(const float* x, float* y, int64_t n, float scale) {
  const int64_t full = n & ~int64_t{15};
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - full)) - 1);
  const __m512 sc = v(scale);
  __m512 mx = v(-INFINITY);
  for (int64_t i = 0; i < full; i += 16) mx = _mm512_max_ps(mx, _mm512_mul_ps(_mm512_loadu_ps(x + i), sc));
  if (tail) mx = _mm512_mask_max_ps(mx, tail, mx, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, x + full), sc));
  const __m512 m = v(hmax16(mx));
  auto shifted_exp = [&](__m512 xv) GE_AVX512 {
    const __m512 t = _mm512_sub_ps(_mm512_mul_ps(xv, sc), m);
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(t, v(-87.3f), _CMP_NLT_UQ), exp16(t));
  };
  __m512 sum = _mm512_setzero_ps();
  for (int64_t i = 0; i < full; i += 16) {
    const __m512 e = shifted_exp(_mm512_loadu_ps(x + i));
    _mm512_storeu_ps(y + i, e);
    sum = _mm512_add_ps(sum, e);
  }
  if (tail) {
    const __m512 e = _mm512_maskz_mov_ps(tail, shifted_exp(_mm512_maskz_loadu_ps(tail, x + full)));
    _mm512_mask_storeu_ps(y + full, tail, e);
    sum = _mm512_add_ps(sum, e);
  }
  const __m512 inv = v(1.f / hsum16(sum));
  for (int64_t i = 0; i < full; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), inv));
  if (tail) _mm512_mask_storeu_ps(y + full, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, y + full), inv));
}

// A 16 x 16 block of 4-byte words transposed in registers: 32-bit then 64-bit interleaves
// within 128-bit lanes (after them register 4k + m holds, in lane l, rows 4k .. 4k+3 of column
// 4l + m), then two rounds of 128-bit lane shuffles gather each column's four lanes (Intel
// 64 and IA-32 Optimization Reference Manual, "matrix transposition"; oneDNN's jit transposes
// do the same). Rows past nj read as zeros and columns past ni are not loaded; only the first
// ni output rows, nj words each, are stored.
GE_AVX512 void transpose32_avx512(const uint32_t* in, int64_t in_stride, uint32_t* out, int64_t out_stride, int ni,
                                  int nj) {
  const __mmask16 cols = static_cast<__mmask16>((1u << ni) - 1), rows = static_cast<__mmask16>((1u << nj) - 1);
  __m512 r[16], a[16];
  for (int j = 0; j < 16; ++j)
    r[j] = j < nj ? _mm512_castsi512_ps(_mm512_maskz_loadu_epi32(cols, in + j * in_stride)) : _mm512_setzero_ps();
  for (int k = 0; k < 8; ++k) {
    a[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    a[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 4; ++k) {
    const __m512d a0 = _mm512_castps_pd(a[4 * k]), a1 = _mm512_castps_pd(a[4 * k + 1]),
                  a2 = _mm512_castps_pd(a[4 * k + 2]), a3 = _mm512_castps_pd(a[4 * k + 3]);
    r[4 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
    r[4 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
    r[4 * k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
    r[4 * k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
  }
  for (int m = 0; m < 4; ++m) {
    const __m512 c0 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0x44), c1 = _mm512_shuffle_f32x4(r[m], r[4 + m], 0xEE);
    const __m512 c2 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0x44),
                 c3 = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0xEE);
    const __m512 o[4] = {_mm512_shuffle_f32x4(c0, c2, 0x88), _mm512_shuffle_f32x4(c0, c2, 0xDD),
                         _mm512_shuffle_f32x4(c1, c3, 0x88), _mm512_shuffle_f32x4(c1, c3, 0xDD)};
    for (int l = 0; l < 4; ++l) {
      const int i = 4 * l + m;
      if (i < ni) _mm512_mask_storeu_epi32(out + i * out_stride, rows, _mm512_castps_si512(o[l]));
    }
  }
}

// F, DQ, BW and VL together: every AVX-512 server core since Skylake-SP has them.
const bool kAvx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                     __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");

}  // namespace

bool has_avx512() { return kAvx512; }

void exp(const float* x, float* y, int64_t n) {
  if (kAvx512) return exp_avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}
void log(const float* x, float* y, int64_t n) {
  if (kAvx512) return log_avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = std::log(x[i]);
}
void sigmoid(const float* x, float* y, int64_t n) {
  if (kAvx512) return sigmoid_avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = 1.f / (1.f + std::exp(-x[i]));
}
void tanh(const float* x, float* y, int64_t n) {
  if (kAvx512) return tanh_avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
}
void erf(const float* x, float* y, int64_t n) {
  if (kAvx512) return erf_avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = std::erf(x[i]);
}

bool softmax(const float* x, float* y, int64_t n, float scale) {
  if (!kAvx512) return false;
  softmax_avx512(x, y, n, scale);
  return true;
}

bool select32(const bool* c, const uint32_t* x, int64_t sx, const uint32_t* y, int64_t sy, uint32_t* o, int64_t n) {
  if (!kAvx512) return false;
  select32_avx512(c, x, sx, y, sy, o, n);
  return true;
}

bool transpose32(const uint32_t* in, int64_t in_stride, uint32_t* out, int64_t out_stride, int ni, int nj) {
  if (!kAvx512 || ni < 1 || nj < 1 || ni > 16 || nj > 16) return false;
  transpose32_avx512(in, in_stride, out, out_stride, ni, nj);
  return true;
}

void half_to_float(const uint16_t* x, float* y, int64_t n) {
  if (kAvx512) return half_to_float_avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = ge::half_to_float(x[i]);
}
void float_to_half(const float* x, uint16_t* y, int64_t n) {
  if (kAvx512) return float_to_half_avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = ge::float_to_half(x[i]);
}

}  // namespace ge::cpu::vec

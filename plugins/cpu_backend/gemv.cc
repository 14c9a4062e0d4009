// plugins/cpu_backend/gemv.cc — one-row Gemm (gemv.h): AVX-512, the columns split between the
// calling thread's OpenMP threads in blocks of 64.
#include "gemv.h"

#include <immintrin.h>

#include <algorithm>

#include "cpu_backend.h"
#include "vecmath.h"

namespace ge::cpu {
namespace {

// GCC 12 reports the _mm256_undefined_pd() inside its own _mm512_reduce_add_ps as "may be used
// uninitialized" (a false positive: the extract writes every lane).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define GE_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))

GE_AVX512 inline __mmask16 tail_mask(int64_t n) { return static_cast<__mmask16>((1u << n) - 1u); }


/// y[n] for n in [n0, n1) with B row-major [N, K]: four dot products of length K at a time.
GE_AVX512 void rows_trans(const float* a, const float* b, int64_t K, int64_t n0, int64_t n1, float* y) {
  const int64_t kfull = K / 16 * 16;
  const __mmask16 km = tail_mask(K - kfull);
  int64_t n = n0;
  for (; n + 4 <= n1; n += 4) {
    const float* r0 = b + n * K;
    const float* r1 = r0 + K;
    const float* r2 = r1 + K;
    const float* r3 = r2 + K;
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps(), s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
    for (int64_t k = 0; k < kfull; k += 16) {
      const __m512 x = _mm512_loadu_ps(a + k);
      s0 = _mm512_fmadd_ps(x, _mm512_loadu_ps(r0 + k), s0);
      s1 = _mm512_fmadd_ps(x, _mm512_loadu_ps(r1 + k), s1);
      s2 = _mm512_fmadd_ps(x, _mm512_loadu_ps(r2 + k), s2);
      s3 = _mm512_fmadd_ps(x, _mm512_loadu_ps(r3 + k), s3);
    }
    if (km) {
      const __m512 x = _mm512_maskz_loadu_ps(km, a + kfull);
      s0 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(km, r0 + kfull), s0);
      s1 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(km, r1 + kfull), s1);
      s2 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(km, r2 + kfull), s2);
      s3 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(km, r3 + kfull), s3);
    }
    y[n] = _mm512_reduce_add_ps(s0);
    y[n + 1] = _mm512_reduce_add_ps(s1);
    y[n + 2] = _mm512_reduce_add_ps(s2);
    y[n + 3] = _mm512_reduce_add_ps(s3);
  }
  for (; n < n1; ++n) {
    const float* r = b + n * K;
    __m512 s = _mm512_setzero_ps();
    for (int64_t k = 0; k < kfull; k += 16) s = _mm512_fmadd_ps(_mm512_loadu_ps(a + k), _mm512_loadu_ps(r + k), s);
    if (km) s = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(km, a + kfull), _mm512_maskz_loadu_ps(km, r + kfull), s);
    y[n] = _mm512_reduce_add_ps(s);
  }
}

/// y[n] for n in [n0, n1) with B row-major [K, N]: 64 columns at a time, every row of B.
GE_AVX512 void cols_plain(const float* a, const float* b, int64_t K, int64_t N, int64_t n0, int64_t n1, float* y) {
  for (int64_t n = n0; n < n1; n += 64) {
    const int64_t w = std::min<int64_t>(64, n1 - n);
    __mmask16 m[4];
    for (int j = 0; j < 4; ++j) m[j] = tail_mask(std::clamp<int64_t>(w - 16 * j, 0, 16));
    __m512 s[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int64_t k = 0; k < K; ++k) {
      const __m512 x = _mm512_set1_ps(a[k]);
      const float* r = b + k * N + n;
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) s[j] = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m[j], r + 16 * j), s[j]);
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) _mm512_mask_storeu_ps(y + n + 16 * j, m[j], s[j]);
  }
}

}  // namespace

bool gemv_available() { return vec::has_avx512(); }

void gemv_f32(const float* a, const float* b, bool trans_b, int64_t K, int64_t N, float alpha, const float* c,
              int64_t c_cols, float* y) {
  // Blocks of 64 columns: a thread's share of B is whole rows (transB) or 256-byte row segments.
  const int64_t blocks = (N + 63) / 64;
  parallel_range(blocks, 1, [&](int64_t b0, int64_t b1) {
    const int64_t n0 = b0 * 64, n1 = std::min(N, b1 * 64);
    if (trans_b) rows_trans(a, b, K, n0, n1, y);
    else cols_plain(a, b, K, N, n0, n1, y);
    for (int64_t n = n0; n < n1; ++n) y[n] = alpha * y[n] + (c ? c[c_cols == 1 ? 0 : n] : 0.f);
  });
}

}  // namespace ge::cpu

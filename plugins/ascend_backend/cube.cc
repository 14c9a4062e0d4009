// plugins/ascend_backend/cube.cc — the Cube's fractal GEMM and im2col convolution (cube.h).
#include "cube.h"

#include <algorithm>

namespace ge::ascend {

ConvKOrder::ConvKOrder(int64_t cg, int64_t group, int64_t kh, int64_t kw) : c04(uses_c04(cg, group)), Kh(kh), Kw(kw) {
  if (c04) {
    c0 = kC04;
    K = (kC04 * kh * kw + 15) / 16 * 16;
  } else {
    K = (cg + 15) / 16 * 16 * kh * kw;
  }
}

std::vector<float> gemm(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& init,
                        int64_t M, int64_t N, int64_t K, int64_t kblock) {
  std::vector<float> C(static_cast<size_t>(M * N));
  std::vector<float> acc(static_cast<size_t>(N)), part(static_cast<size_t>(N));
  for (int64_t m = 0; m < M; ++m) {
    const float* a = A.data() + m * K;
    for (int64_t n = 0; n < N; ++n) acc[n] = init.empty() ? 0.f : init[n];
    if (kblock <= 0) {
      // AI CPU: one running sum per output, k ascending (vectorized across n, same order per n).
      for (int64_t k = 0; k < K; ++k) {
        const float av = a[k];
        const float* b = B.data() + k * N;
        for (int64_t n = 0; n < N; ++n) acc[n] += av * b[n];
      }
    } else {
      for (int64_t k0 = 0; k0 < K; k0 += kblock) {
        std::fill(part.begin(), part.end(), 0.f);
        const int64_t k1 = std::min(K, k0 + kblock);
        for (int64_t k = k0; k < k1; ++k) {
          const float av = a[k];
          if (av == 0.f) continue;  // adds exact zeros (or -0 products) only: same result
          const float* b = B.data() + k * N;
          for (int64_t n = 0; n < N; ++n) part[n] += av * b[n];
        }
        for (int64_t n = 0; n < N; ++n) acc[n] += part[n];
      }
    }
    std::copy(acc.begin(), acc.end(), C.begin() + m * N);
  }
  return C;
}

std::vector<float> conv2d(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias,
                          const ConvGeometry& g, bool cube) {
  const int64_t Cg = g.C / g.group, Og = g.O / g.group;
  const ConvKOrder order(Cg, g.group, g.Kh, g.Kw);
  const int64_t K = cube ? order.K : Cg * g.Kh * g.Kw, M = g.OH * g.OW;
  // K index of (c, kh, kw): Cube ConvKOrder (FRACTAL_Z or FRACTAL_Z_C04); AI CPU (c, kh, kw).
  auto kidx = [&](int64_t c, int64_t kh, int64_t kw) { return cube ? order(c, kh, kw) : (c * g.Kh + kh) * g.Kw + kw; };
  std::vector<float> y(static_cast<size_t>(g.N * g.O * M));
  std::vector<float> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * Og)), init(static_cast<size_t>(Og));
  for (int64_t gi = 0; gi < g.group; ++gi) {
    std::fill(B.begin(), B.end(), 0.f);
    conv_gemm_b(w, g, gi, kidx, B);
    for (int64_t o = 0; o < Og; ++o) init[o] = bias.empty() ? 0.f : bias[gi * Og + o];
    for (int64_t n = 0; n < g.N; ++n) {
      std::fill(A.begin(), A.end(), 0.f);  // padding taps and padded channels read zero
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow)
          conv_im2col_row(x, g, gi, n, oh, ow, kidx, A.data() + (oh * g.OW + ow) * K);
      const std::vector<float> out = gemm(A, B, init, M, Og, K, cube ? 16 : 0);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t o = 0; o < Og; ++o) y[((n * g.O + gi * Og + o) * M) + m] = out[m * Og + o];
    }
  }
  return y;
}

}  // namespace ge::ascend

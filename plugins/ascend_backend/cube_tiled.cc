// plugins/ascend_backend/cube_tiled.cc — the Cube task executed tile by tile from its stored
// tiling (cube.h): L0C tiles of m_tile × n_tile fp32 partial sums, K consumed in k_tile steps
// (L0A/L0B) and 16-wide fractals, in the order the hardware's loop nest would; under split-K each
// core's K range separately, then the fp32 combine.
#include <algorithm>

#include "cube.h"
#include "ge/sdk/error.h"

namespace ge::ascend {

void cube_batch_tiles(const float* A, const float* B, const float* init, float* C, const CubeTiling& t, int64_t batch_index) {
  const int64_t M = t.M, N = t.N, K = t.K;
  std::vector<float> l0c(static_cast<size_t>(t.m_tile * t.n_tile)), part(static_cast<size_t>(t.n_tile));
  // Split-K (tiling.h): the cores of K block kb write their fp32 partial sums of the batch's
  // output to workspace kb (M × N); the combine below adds them to init in K-block order.
  const int64_t bk = t.blocks_k();
  std::vector<float> workspace(t.split_k() ? static_cast<size_t>(bk * M * N) : 0);
  // The batch's tiles core by core through the tile→core mapping of tiling.h (round-robin or
  // block partition): cores are independent and each element's K order is the same in every
  // tile order, so executing the cores one after another gives the same result as any
  // interleaving. Round-robin cores hold tiles of every batch: those of other batches are skipped.
  const int64_t per_batch = t.m_tiles() * t.n_tiles();
  int64_t core0 = 0, core1 = t.block_dim;
  if (t.blocked()) core0 = batch_index * t.blocks_m() * t.blocks_n() * bk, core1 = core0 + t.blocks_m() * t.blocks_n() * bk;
  for (int64_t core = core0; core < core1; ++core) {
    int64_t i0 = 0, i1 = t.core_tile_count(core);
    if (!t.blocked()) {  // tiles core + i·block_dim of this batch: indices [batch·per_batch, (batch+1)·per_batch)
      i0 = std::max<int64_t>(0, (batch_index * per_batch - core + t.block_dim - 1) / t.block_dim);
      i1 = std::min(i1, ((batch_index + 1) * per_batch - core + t.block_dim - 1) / t.block_dim);
    }
    int64_t k_lo, k_hi;
    const int64_t kb = t.k_block(core, k_lo, k_hi);
    float* out = t.split_k() ? workspace.data() + kb * M * N : C;
    for (int64_t i = i0; i < i1; ++i) {
      int64_t bi, mi, ni;
      t.core_tile(core, i, bi, mi, ni);
      if (bi != batch_index) throw Error("cube_batch_tiles: tile→core mapping gave batch " + std::to_string(bi) + " for batch " +
                                         std::to_string(batch_index));
      const int64_t m0 = mi * t.m_tile, m1 = std::min(M, m0 + t.m_tile);
      const int64_t n0 = ni * t.n_tile, n1 = std::min(N, n0 + t.n_tile), nw = n1 - n0;
      for (int64_t m = m0; m < m1; ++m)  // L0C starts at the bias (split-K: at zero, the combine adds the bias)
        for (int64_t j = 0; j < nw; ++j) l0c[(m - m0) * t.n_tile + j] = init && !t.split_k() ? init[n0 + j] : 0.f;
      // The core's K range in k_tile steps (L0A / L0B); A and B reach L1 in chunks of k_l1 and
      // k_l1_b, which moves data only: the sums are the same for any chunking.
      for (int64_t s0 = k_lo; s0 < k_hi; s0 += t.k_tile) {
        const int64_t s1 = std::min(k_hi, s0 + t.k_tile);
        for (int64_t m = m0; m < m1; ++m) {
          const float* a = A + m * K;
          float* acc = l0c.data() + (m - m0) * t.n_tile;
          for (int64_t f0 = s0; f0 < s1; f0 += 16) {  // one 16-wide fractal
            const int64_t f1 = std::min(s1, f0 + 16);
            std::fill(part.begin(), part.begin() + nw, 0.f);
            for (int64_t k = f0; k < f1; ++k) {
              const float av = a[k];
              if (av == 0.f) continue;  // adds exact zeros only: same result (as gemm())
              const float* b = B + k * N + n0;
              for (int64_t j = 0; j < nw; ++j) part[j] += av * b[j];
            }
            for (int64_t j = 0; j < nw; ++j) acc[j] += part[j];
          }
        }
      }
      for (int64_t m = m0; m < m1; ++m)  // write-out of the L0C tile
        std::copy(l0c.begin() + (m - m0) * t.n_tile, l0c.begin() + (m - m0) * t.n_tile + nw, out + m * N + n0);
    }
  }
  if (!t.split_k()) return;
  // The combine, in fp32: C = init + partial 0 + partial 1 + … (K-block order). Which core combines
  // which rows does not change any element's sum.
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float acc = init ? init[n] : 0.f;
      for (int64_t kb = 0; kb < bk; ++kb) acc += workspace[static_cast<size_t>((kb * M + m) * N + n)];
      C[m * N + n] = acc;
    }
}

std::vector<float> conv2d_tiled(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias,
                                const ConvGeometry& g, const CubeTiling& t) {
  const int64_t Cg = g.C / g.group, Og = g.O / g.group;
  const ConvKOrder kidx(Cg, g.group, g.Kh, g.Kw);  // K index of (c, kh, kw): FRACTAL_Z or FRACTAL_Z_C04
  const int64_t K = kidx.K, S = g.OH * g.OW, M = g.N * S;
  if (t.batch != g.group || t.M != M || t.N != Og || t.K != K)
    throw Error("conv2d_tiled: the tiling's problem (batch " + std::to_string(t.batch) + ", M " + std::to_string(t.M) + ", N " +
                std::to_string(t.N) + ", K " + std::to_string(t.K) + ") is not this convolution's");
  std::vector<float> y(static_cast<size_t>(g.N * g.O * S));
  std::vector<float> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * Og)), init(static_cast<size_t>(Og));
  std::vector<float> C(static_cast<size_t>(M * Og));
  for (int64_t gi = 0; gi < g.group; ++gi) {
    std::fill(B.begin(), B.end(), 0.f);
    conv_gemm_b(w, g, gi, kidx, B);
    for (int64_t o = 0; o < Og; ++o) init[o] = bias.empty() ? 0.f : bias[gi * Og + o];
    std::fill(A.begin(), A.end(), 0.f);  // padding taps and padded channels read zero
    for (int64_t n = 0; n < g.N; ++n)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow)
          conv_im2col_row(x, g, gi, n, oh, ow, kidx, A.data() + (n * S + oh * g.OW + ow) * K);
    cube_batch_tiles(A.data(), B.data(), init.data(), C.data(), t, gi);
    for (int64_t n = 0; n < g.N; ++n)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t o = 0; o < Og; ++o) y[(n * g.O + gi * Og + o) * S + s] = C[(n * S + s) * Og + o];
  }
  return y;
}

}  // namespace ge::ascend

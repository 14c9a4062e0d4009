// plugins/ascend_backend/cube.h — the AI Core Cube unit as the emulator computes it, and the
// AI CPU's plain fp32 reference loops (the same GEMM with another accumulation order).
//
// Cube (fp16 inputs): C[m][n] = init[n] + sum over K-blocks kb of ( sum_{k0 < 16} A[m][kb*16+k0]
// * B[kb*16+k0][n] ), every product exact in fp32 (11-bit x 11-bit significands), each 16-wide
// fractal partial summed in order k0 = 0..15 in fp32, then added to the fp32 accumulator
// (L0C) in K-block order. K is padded to a multiple of 16 with zeros (as the fractal formats are).
// The order inside one fractal is the emulator's definition: the hardware's adder tree is not
// public (docs/ascend.md).
// AI CPU (fp32): C[m][n] = init[n] + sum_k A[m][k] * B[k][n], one running fp32 sum in k order.
#pragma once
#include <cstdint>
#include <vector>

#include "tiling.h"

namespace ge::ascend {

/// A is M x K row-major, Bt is K x N row-major (B), init has N entries (bias; zeros when empty).
/// kblock = 16: the Cube's fractal order; kblock = 0: one running sum (AI CPU). Returns M x N.
std::vector<float> gemm(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& init,
                        int64_t M, int64_t N, int64_t K, int64_t kblock);

/// 2-D convolution geometry (ONNX Conv attributes resolved against the inferred output shape).
struct ConvGeometry {
  int64_t N, C, H, W, O, Kh, Kw, OH, OW, group;
  int64_t stride_h, stride_w, dil_h, dil_w, pad_t, pad_l;
};

/// The Cube's K order of a convolution (the im2col column of tap (c, kh, kw) of one group).
/// FRACTAL_Z: (c1, kh, kw, c0) with C0 = 16, each group's channels padded to a multiple of 16:
/// K = ⌈Cg/16⌉·16·Kh·Kw. Small-channel convolutions (group 1, C ≤ 4) use CANN's FRACTAL_Z_C04
/// order instead: (kh, kw, c0) with C0 = 4, the product padded with zeros at its end to a
/// multiple of 16: K = ⌈4·Kh·Kw/16⌉·16 (208 for 7×7, 48 for 3×3; FRACTAL_Z gives 784 and 144).
/// Source: FRACTAL_Z_C04 / NC1HWC0_C04 are CANN formats with C0 = 4 (aclFormat, GetPrimaryFormat
/// in the CANN API reference); the C04 weight's device shape is [⌈4·Kh·Kw/16⌉, ⌈O/16⌉, 16, 16]
/// (MindSpore's FracZc04DeviceShape); docs/ascend.md "Formats".
struct ConvKOrder {
  static constexpr int64_t kC04 = 4;
  bool c04 = false;
  int64_t c0 = 16, Kh = 1, Kw = 1, K = 0;
  /// cg = input channels per group.
  ConvKOrder(int64_t cg, int64_t group, int64_t kh, int64_t kw);
  /// Small-channel rule (CANN selects FRACTAL_Z_C04 for C ≤ 4): group 1 and cg ≤ 4.
  static bool uses_c04(int64_t cg, int64_t group) { return group == 1 && cg <= kC04; }
  int64_t operator()(int64_t c, int64_t kh, int64_t kw) const {
    return c04 ? (kh * Kw + kw) * kC04 + c : (((c / c0) * Kh + kh) * Kw + kw) * c0 + c % c0;
  }
};

/// Group gi's weights as the GEMM's B (K × O/group, row-major, zero-filled by the caller): row
/// kidx(c, kh, kw) holds W[gi·O/group + o][c][kh][kw]; rows kidx never names stay zero (padding).
template <class KIdx>
void conv_gemm_b(const std::vector<float>& w, const ConvGeometry& g, int64_t gi, const KIdx& kidx, std::vector<float>& B) {
  const int64_t Cg = g.C / g.group, Og = g.O / g.group;
  for (int64_t o = 0; o < Og; ++o)
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t kh = 0; kh < g.Kh; ++kh)
        for (int64_t kw = 0; kw < g.Kw; ++kw)
          B[kidx(c, kh, kw) * Og + o] = w[(((gi * Og + o) * Cg + c) * g.Kh + kh) * g.Kw + kw];
}

/// Calls tap(kh, kw, ih, iw) for every kernel tap of output pixel (oh, ow) that lands inside the
/// input (taps in the padding are skipped: their im2col entries stay zero).
template <class Tap>
void for_each_input_tap(const ConvGeometry& g, int64_t oh, int64_t ow, const Tap& tap) {
  for (int64_t kh = 0; kh < g.Kh; ++kh) {
    const int64_t ih = oh * g.stride_h - g.pad_t + kh * g.dil_h;
    if (ih < 0 || ih >= g.H) continue;
    for (int64_t kw = 0; kw < g.Kw; ++kw) {
      const int64_t iw = ow * g.stride_w - g.pad_l + kw * g.dil_w;
      if (iw >= 0 && iw < g.W) tap(kh, kw, ih, iw);
    }
  }
}

/// The im2col row of output pixel (n, oh, ow) for group gi (zero-filled by the caller):
/// row[kidx(c, kh, kw)] = X[n][gi·C/group + c][ih][iw]; taps in the padding stay zero.
template <class KIdx>
void conv_im2col_row(const std::vector<float>& x, const ConvGeometry& g, int64_t gi, int64_t n, int64_t oh, int64_t ow,
                     const KIdx& kidx, float* row) {
  const int64_t Cg = g.C / g.group;
  for_each_input_tap(g, oh, ow, [&](int64_t kh, int64_t kw, int64_t ih, int64_t iw) {
    for (int64_t c = 0; c < Cg; ++c) row[kidx(c, kh, kw)] = x[((n * g.C + gi * Cg + c) * g.H + ih) * g.W + iw];
  });
}

/// Convolution of X [N,C,H,W] with W [O,C/group,Kh,Kw] plus bias (may be empty), via im2col and
/// gemm(). cube = true: K in ConvKOrder (FRACTAL_Z, or FRACTAL_Z_C04 for small-channel convs)
/// and kblock 16; false: K in (c, kh, kw) order, one running sum. Returns Y [N,O,OH,OW].
std::vector<float> conv2d(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias,
                          const ConvGeometry& g, bool cube);

/// One batch of a Cube task executed tile by tile from its tiling (cube_tiled.cc): A is t.M x t.K,
/// B is t.K x t.N (row-major), init has t.N entries or is null, C receives t.M x t.N. Output tiles
/// in tiling.h's order (M-major, then N; tile i of the task runs on AI Core i mod block_dim); per
/// tile the fp32 L0C tile starts at init, then for each k_tile step in L0A/L0B, each 16-wide
/// fractal: the partial summed in k0 order is added to L0C. Per element this is exactly
/// gemm(..., kblock = 16): bit-identical results for every valid tiling without split-K. Under
/// split-K (tiling.h single_core_k) each core's L0C starts at zero and sums the fractals of its K
/// range; the result is init + partial 0 + partial 1 + … in fp32, in K-block order — the same
/// fractal partials as gemm() but associated differently, so not bit-identical (each element
/// differs from gemm()'s by at most the two orders' rounding bounds, test_tiling_depth.cc).
/// `batch_index` only numbers the tiles (core assignment).
void cube_batch_tiles(const float* A, const float* B, const float* init, float* C, const CubeTiling& t, int64_t batch_index);

/// conv2d(..., cube = true) executed from a Cube tiling of the convolution (batch = group,
/// M = N·OH·OW, N = O/group, K = ConvKOrder's K): one im2col A of all images per
/// group, then cube_batch_tiles. Bit-identical to conv2d(..., true) without split-K.
std::vector<float> conv2d_tiled(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias,
                                const ConvGeometry& g, const CubeTiling& t);

}  // namespace ge::ascend

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

/// Convolution of X [N,C,H,W] with W [O,C/group,Kh,Kw] plus bias (may be empty), via im2col and
/// gemm(). cube = true: K ordered as FRACTAL_Z's (c1, kh, kw, c0) with each group's channels
/// padded to a multiple of 16 and kblock 16; false: K in (c, kh, kw) order, one running sum.
/// Returns Y [N,O,OH,OW].
std::vector<float> conv2d(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias,
                          const ConvGeometry& g, bool cube);

/// One batch of a Cube task executed tile by tile from its tiling (cube_tiled.cc): A is t.M x t.K,
/// B is t.K x t.N (row-major), init has t.N entries or is null, C receives t.M x t.N. Output tiles
/// in tiling.h's order (M-major, then N; tile i of the task runs on AI Core i mod block_dim); per
/// tile the fp32 L0C tile starts at init, then for each k_l1 panel staged in L1, each k_tile step
/// in L0A/L0B, each 16-wide fractal: the partial summed in k0 order is added to L0C. Per element
/// this is exactly gemm(..., kblock = 16): bit-identical results for every valid tiling.
/// `batch_index` only numbers the tiles (core assignment).
void cube_batch_tiles(const float* A, const float* B, const float* init, float* C, const CubeTiling& t, int64_t batch_index);

/// conv2d(..., cube = true) executed from a Cube tiling of the convolution (batch = group,
/// M = N·OH·OW, N = O/group, K = ⌈(C/group)/16⌉·16·Kh·Kw): one im2col A of all images per
/// group, then cube_batch_tiles. Bit-identical to conv2d(..., true).
std::vector<float> conv2d_tiled(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias,
                                const ConvGeometry& g, const CubeTiling& t);

}  // namespace ge::ascend

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

}  // namespace ge::ascend

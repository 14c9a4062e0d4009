// plugins/ascend_backend/conv_c04.h — a small-channel convolution on the Cube read straight from
// its C04 storage (ge/sdk/types.h: NC1HWC0_C04 input, FRACTAL_Z_C04 weights), as the hardware
// does: the im2col row of an output pixel takes 4 consecutive values (one pixel's C0 = 4
// channels) per kernel tap — ConvKOrder's (kh, kw, c0) order is exactly that storage order — and
// the GEMM's B is the weight constant's fractals as stored (B[k][o] at
// ((k/16·N1 + o/16)·16 + o%16)·16 + k%16). The products and sums are cube_batch_tiles', so the
// result is bit-identical to conv2d_tiled on the logical operands (docs/ascend.md "Formats").
#pragma once
#include <string>
#include <vector>

#include "cube.h"
#include "ge/sdk/tensor.h"

namespace ge::ascend {

/// True when x is NC1HWC0_C04, w FRACTAL_Z_C04 and the convolution's Cube K order is C04 (group 1,
/// C ≤ 4): then conv2d_tiled_c04 applies.
bool reads_c04(Format x, Format w, const ConvGeometry& g);

/// conv2d_tiled (cube.h) of x (NC1HWC0_C04, fp16 or fp32) and w (FRACTAL_Z_C04) read in their
/// storage; bias has O entries or is empty. Throws ge::Error naming `who` when the operands or the
/// tiling do not match the geometry. Returns Y [N, O, OH, OW] as float32.
std::vector<float> conv2d_tiled_c04(const Tensor& x, const Tensor& w, const std::vector<float>& bias, const ConvGeometry& g,
                                    const CubeTiling& t, const std::string& who);

}  // namespace ge::ascend

// plugins/ascend_backend/cube_conv_transpose.h — ConvTranspose's geometry (conv_transpose_kernel.cc):
// the Cube problem (tiling_problem.cc) and the kernel share it.
#pragma once
#include "cube.h"
#include "ge/sdk/ir.h"

namespace ge::ascend {

/// ConvTranspose of X [N, C, (H,) W] with W [C, O/group, (Kh,) Kw] into the node's inferred output:
/// C = input channels, O = output channels, H × W the input, OH × OW the output (1-D: H = Kh =
/// OH = 1), pads from `pads`, or from output_shape / auto_pad as the ONNX spec derives them.
/// The Cube's problem per group: M = N·H·W, K = C/group, N = (O/group)·Kh·Kw.
/// Throws UnsupportedError for other ranks, InvalidGraphError for inconsistent attributes.
ConvGeometry conv_transpose_geometry(const Node& n);

}  // namespace ge::ascend

// plugins/ascend_backend/kernels.h — registration of the emulator's kernels for backend
// "ascend", one family per file.
#pragma once
#include "ge/sdk/plugin.h"

namespace ge::ascend {

void register_cube_kernels(Registrar& r);    // Conv, ge.FusedConv, MatMul, Gemm, ge.FusedMatMul (cube_kernels.cc)
void register_conv_transpose_kernel(Registrar& r);  // ConvTranspose: Cube GEMM + col2im (conv_transpose_kernel.cc)
void register_vector_kernels(Registrar& r);  // Add Sub Mul Div Pow Sum Relu LeakyRelu Clip Sigmoid Sqrt Erf (vector_kernels.cc)
void register_pool_kernels(Registrar& r);    // MaxPool AveragePool GlobalAveragePool GlobalMaxPool
void register_data_kernels(Registrar& r);    // ge.TransData ge.Cast Concat (data_kernels.cc)
void register_row_kernels(Registrar& r);     // Softmax ReduceMean ge.LayerNormalization (vector_rows.cc)
void register_fused_vector_kernels(Registrar& r);  // ge.Gelu ge.FusedElementwise (vector_fused.cc)
/// Flatten Reshape Squeeze Unsqueeze Identity Dropout, and the AI CPU engine: every op the cpu
/// backend has a kernel for runs through it on the AI CPU when the emulator has no kernel class
/// for it, or its class refuses an AI CPU task (a kernel delegate, ge/sdk/kernel_delegate.h).
void register_aicpu_kernels(Registrar& r);
void register_move_kernels(Registrar& r);     // Transpose Slice Gather on the AI Core or AI CPU (move_kernels.cc)

}  // namespace ge::ascend

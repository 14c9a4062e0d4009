// plugins/ascend_backend/placement.h — where a node runs on the device: the AI Core's Cube
// (Conv, ge.FusedConv, MatMul, Gemm, ge.FusedMatMul on fp16), its Vector unit (elementwise,
// pooling, Concat, Softmax, ReduceMean, the fused LayerNorm / Gelu / elementwise ops, TransData,
// Cast on fp16 or fp32; its MTE / Vector pipes move the data of Transpose, Slice, Gather —
// move_ops.h), or the AI CPU (everything else, and Cube ops on fp32 — the
// Cube multiplies fp16 / int8 only). Kernels report it in impl_name() ("aicore:cube:Conv"), the
// precision pass counts it ("ascend.placement.*").
#pragma once
#include <string>

#include "ge/sdk/ir.h"

namespace ge::ascend {

enum class Engine { Cube, Vector, AiCpu };

/// Ops with engine "cube" in ops_info.toml: Conv, ge.FusedConv, ConvTranspose, MatMul, Gemm,
/// ge.FusedMatMul (a fused bias / activation epilogue runs on the Vector unit).
bool is_cube_op(const Node& n);
/// Ops the Vector unit computes (engine "vector" in ops_info.toml, other than the data movement
/// and conversion problems): elementwise ops, the pools, Concat, Softmax, ReduceMean,
/// ge.LayerNormalization, ge.Gelu, ge.FusedElementwise.
bool is_vector_op(const Node& n);
/// Every op with engine "vector": is_vector_op, the moves (move_ops.h), TransData and Cast.
bool has_vector_kernel(const Node& n);
/// Engine of a node: the one stored by the ascend_tiling pass (attribute ascend_engine, chosen by
/// cost in placement_cost.h) when present, else the capability rule with its current dtypes
/// (input 0's dtype decides for Cube ops).
Engine engine_for(const Node& n);
/// "aicore:cube", "aicore:vector", "aicpu".
std::string engine_name(Engine e);

}  // namespace ge::ascend

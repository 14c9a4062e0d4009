// plugins/cpu_backend/blocked.h — the CPU backend's NC1HWC0 (oneDNN nChw16c) support: which
// nodes can run blocked (read by layout_preferences.cc and by the kernels, so the two agree)
// and helpers shared by the blocked kernels. Formats and the shape convention: ge/sdk/types.h.
#pragma once
#include <dnnl.hpp>

#include "ge/sdk/kernel.h"
#include "ge/sdk/plugin.h"

namespace ge::cpu {

/// f32 memory descriptor of a logical rank-4 NCHW shape stored as NC1HWC0 (oneDNN nChw16c:
/// padded dims [N, C1*16, H, W]; the padding is zero).
dnnl::memory::desc blocked_md(const Shape& nchw);
/// The memory descriptor of value `v`: blocked_md for NC1HWC0, plain_md otherwise.
dnnl::memory::desc value_md(const Value& v);
/// True when value v (may be null) is NC1HWC0.
inline bool is_blocked(const Value* v) { return v && v->format == Format::NC1HWC0; }
/// Throws UnsupportedError unless input 0 and output 0 are plain, or NC1HWC0 with rank 4 and
/// float32 (the formats a blocked-capable kernel reads).
void require_plain_or_blocked(const KernelBuildContext& ctx);

/// Whether a Conv / ge.FusedConv node runs on oneDNN with an NC1HWC0 source (`src_blocked`) and
/// NC1HWC0 destination without falling back to oneDNN's reference implementation (builds the
/// primitive descriptor to find out).
bool conv_supports_blocked(const Node& node, int64_t opset, bool src_blocked);
/// MaxPool (no Indices) / AveragePool (no ceil overhang) / GlobalAveragePool / GlobalMaxPool,
/// 2-D, float32.
bool pool_supports_blocked(const Node& node, int64_t opset);
/// Elementwise ops that keep NC1HWC0's zero padding zero (f(0) = 0, f(0, 0) = 0) on operands of
/// the output's shape: Add, Sub, Mul, Relu, LeakyRelu, Clip with min <= 0 <= max.
bool elementwise_supports_blocked(const Node& node);
/// Concat along the channel axis of rank-4 inputs whose channel counts are multiples of C0.
bool concat_supports_blocked(const Node& node);

/// Registers the backend's format preference function (layout_preferences.cc).
void register_format_preferences(Registrar& r);
/// Runs a kernel family's registration so that ops with a blocked kernel (elementwise, Concat)
/// dispatch to it for NC1HWC0 nodes (layout_preferences.cc).
void register_with_blocked_routing(Registrar& r, void (*register_family)(Registrar&));
/// Kernels: ge.TransData (transdata.cc), blocked pools (pool_blocked.cc), blocked elementwise
/// and Concat (elementwise_blocked.cc) — the latter two are chosen by the plain kernels'
/// factories when the node's formats are NC1HWC0.
void register_transdata_kernels(Registrar& r);
std::unique_ptr<Kernel> make_blocked_pool(const KernelBuildContext& ctx);
std::unique_ptr<Kernel> make_blocked_elementwise(const KernelBuildContext& ctx);
std::unique_ptr<Kernel> make_blocked_concat(const KernelBuildContext& ctx);

}  // namespace ge::cpu

// plugins/cpu_backend/blocked.h — the CPU backend's NC1HWC0 (oneDNN nChw16c) support: which
// nodes can run blocked (read by layout_preferences.cc and by the kernels, so the two agree)
// and helpers shared by the blocked kernels. Formats and the shape convention: ge/sdk/types.h.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

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
/// primitive descriptor, weights format_tag::any, to find out): std::nullopt when it does not,
/// else the GE format of the weights layout that implementation chose (conv_weight_format;
/// NCHW when it is none of GE's weight formats).
std::optional<Format> conv_blocked_weight_format(const Node& node, int64_t opset, bool src_blocked);

/// oneDNN weight dims of a Conv with logical weights w = [M, C/G, k...] and `group` G:
/// [M, C/G, k...], or [G, M/G, C/G, k...] when G > 1 (the same memory as ONNX's W).
dnnl::memory::dims conv_weight_dims(const Shape& w, int64_t group);
/// f32 descriptor of weights with oneDNN dims `wdims` stored in GE format f (conv_weights.cc):
/// plain OIHW, OIhw16i16o / Ohwi16o (ungrouped 2-D), Goihw16g (one output channel per group).
/// Throws UnsupportedError naming `what` (the value and node) for any other combination.
dnnl::memory::desc conv_weight_md(const dnnl::memory::dims& wdims, Format f, const std::string& what);
/// The GE weight format whose descriptor equals `chosen` (a primitive's weights_desc()), or
/// NCHW when none does.
Format conv_weight_format(const dnnl::memory::desc& chosen, const dnnl::memory::dims& wdims);
/// MaxPool (no Indices) / AveragePool (no ceil overhang) / GlobalAveragePool / GlobalMaxPool,
/// 2-D, float32.
bool pool_supports_blocked(const Node& node, int64_t opset);
/// ge.SqueezeExcitation with a 4-D float32 X of at least 16 channels: X and S blocked, the
/// weights plain (squeeze_excitation.cc).
bool squeeze_excitation_supports_blocked(const Node& node);
/// Elementwise ops that keep NC1HWC0's zero padding zero (f(0) = 0, f(0, 0) = 0) on operands of
/// the output's shape: Add, Sub, Mul, Relu, LeakyRelu, Clip with min <= 0 <= max. One operand of
/// Add, Sub or Mul may instead be a non-constant channel vector [N or 1, C, 1, 1].
bool elementwise_supports_blocked(const Node& node);
/// Same-shape unary float32 elementwise ops of any f (Sigmoid, Tanh, Erf, Exp, HardSwish, …: the
/// ops registered through add_map_kernel, elementwise_common.h), rank 4: the map runs over the
/// stored elements and the padding channels are set back to zero after it (make_blocked_map).
bool unary_supports_blocked(const Node& node);
/// ge.FusedElementwise whose tensor inputs all have the output's rank-4 shape or broadcast to it
/// with the output's channel count (e.g. a squeeze-excitation scale [N, C, 1, 1] of [N, C, H, W]:
/// in NC1HWC0 that is [N, C1, 1, 1, C0] against [N, C1, H, W, C0], a broadcast of the stored
/// shapes); one-element constants aside, which stay plain scalars.
bool fused_elementwise_supports_blocked(const Node& node);
/// The op types add_map_kernel registered (filled at registration; read by the two above).
std::unordered_set<std::string>& blocked_map_ops();
/// Wraps a kernel that maps every stored element of its NC1HWC0 output (padding included) into
/// one that then sets the padding channels of the last C1 block back to zero (ge/sdk/types.h).
std::unique_ptr<Kernel> make_blocked_map(const KernelBuildContext& ctx, std::unique_ptr<Kernel> map);
/// BatchNormalization (inference, spatial) of a 4-D float32 tensor with constant parameters.
bool batchnorm_supports_blocked(const Node& node, int64_t opset);
/// Concat along the channel axis of rank-4 inputs whose channel counts are multiples of C0.
bool concat_supports_blocked(const Node& node);
/// Pad of a float32 NCHW tensor on H and W only with constant pads (tensor_pad.cc).
bool pad_supports_blocked(const Node& node, int64_t opset);
std::unique_ptr<Kernel> make_blocked_pad(const KernelBuildContext& ctx);
/// Resize / Upsample of a 4-D float32 tensor over H and W (N, C unchanged, constant scales or
/// sizes, not tf_crop_and_resize / tf_half_pixel_for_nn, which move channels at scale 1).
bool resize_supports_blocked(const Node& node, int64_t opset);
/// 2-D float32 ConvTranspose that oneDNN runs (not its reference loop) and whose output oneDNN
/// covers whole (no output_padding past the end padding).
bool conv_transpose_supports_blocked(const Node& node, int64_t opset);

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
/// AveragePool on plain NCHW float32 through oneDNN's pooling_forward (pool_blocked.cc), or null
/// when the node is not 2-D, is dilated or has a ceil_mode window past the padding (the direct
/// kernel of pool.cc runs those).
std::unique_ptr<Kernel> make_plain_onednn_avgpool(const KernelBuildContext& ctx);
std::unique_ptr<Kernel> make_blocked_elementwise(const KernelBuildContext& ctx);
std::unique_ptr<Kernel> make_blocked_concat(const KernelBuildContext& ctx);

}  // namespace ge::cpu

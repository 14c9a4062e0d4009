// plugins/cpu_backend/conv.h — the convolution kernels' shared entry: Conv (conv.cc) and
// ge.FusedConv (fused_conv.cc) build the same kernels, FusedConv with post-ops.
//
// Post-ops follow ge.FusedConv (plugins/fusion/ops/conv.toml): Y = act(Conv(X, W, B) + Z), with
// Z as input 3. On oneDNN they are primitive attributes (oneDNN docs, "Primitive Attributes:
// Post-ops"): a sum post-op (dst = conv + 1.0·dst, so Z is copied into dst first), then an
// eltwise post-op (relu, clip, logistic).
#pragma once
#include <memory>
#include <string>

#include <dnnl.hpp>

#include "ge/sdk/kernel.h"

namespace ge::cpu {

/// Node attribute set by the cpu_conv_winograd pass (winograd_pass.cc): "winograd" asks the conv
/// kernel for oneDNN's Winograd convolution (direct where oneDNN has none for the node).
inline constexpr const char* kConvAlgorithmAttr = "cpu_conv_algorithm";

struct ConvPostOps {
  bool sum = false;  ///< add input 3 (Z, the conv output's shape) before the activation
  dnnl::algorithm eltwise = dnnl::algorithm::undef;  ///< eltwise_relu / eltwise_clip / eltwise_logistic
  float alpha = 0.f, beta = 0.f;                     ///< oneDNN's eltwise parameters (clip: min, max)
  bool any() const { return sum || eltwise != dnnl::algorithm::undef; }
};

/// The `activation` / `activation_params` attributes of ge.FusedConv or ge.FusedMatMul (their
/// common list: plugins/fusion/ops/conv.toml) as a oneDNN eltwise post-op (`sum` unset).
/// Throws UnsupportedError for an activation outside the list, InvalidGraphError for missing
/// params, naming the node.
ConvPostOps read_activation_post_op(const KernelBuildContext& ctx);
/// The same list read from the attributes `attr` / `params_attr` (ge.SqueezeExcitation's
/// activation and gate).
ConvPostOps read_activation_post_op(const KernelBuildContext& ctx, const std::string& attr,
                                    const std::string& params_attr);

/// y[i] = act(y[i] + z[i]) for i < n, in place (z may be null: no sum), in parallel blocks over
/// the calling kernel's threads — the activation as oneDNN's eltwise algorithm of `post` defines it.
void apply_post_ops_in_place(const ConvPostOps& post, float* y, const float* z, int64_t n);
/// True when post's activation maps 0 to 0 (none, Relu/LeakyRelu, Tanh, HardSwish, Swish, Elu,
/// Clip with min ≤ 0 ≤ max), so it may run over an NC1HWC0 buffer's zero padding.
bool activation_keeps_zero(const ConvPostOps& post);

/// Builds the kernel of a Conv-like node (inputs X, W, B [, Z]) with `post` applied to its
/// output: oneDNN's convolution with post-ops, or the direct depthwise kernel followed by
/// apply_post_ops. Throws like Conv (UnsupportedError / InvalidGraphError naming the node).
std::unique_ptr<Kernel> make_conv_kernel(const KernelBuildContext& ctx, const ConvPostOps& post);

/// A Conv or ge.FusedConv that is a per-channel affine map: depthwise (group = C = M) with a 1×1
/// kernel, unit strides and dilations, no padding, constant plain float32 W [C,1,1,1] and B [C],
/// a 4-D input, no Z, activation none or Relu (conv_channel_affine.cc). The layout pass keeps its
/// weights plain.
bool conv_is_channel_affine(const Node& n);
/// Its kernel (y = act(W[c] · x + B[c]) per channel, on NC1HWC0 or NCHW with equal input and
/// output formats), or null when the node is not one or the formats differ.
std::unique_ptr<Kernel> make_channel_affine_conv(const KernelBuildContext& ctx);

/// Wraps a kernel that computes Conv(X, W, B) into one that then applies `post` in place on
/// its output, in one pass (for the kernels that have no post-op support of their own).
std::unique_ptr<Kernel> apply_post_ops(std::unique_ptr<Kernel> conv, const KernelBuildContext& ctx,
                                       const ConvPostOps& post);

}  // namespace ge::cpu

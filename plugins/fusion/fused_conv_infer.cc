// plugins/fusion/fused_conv_infer.cc — shape inference of ge.FusedConv and ge.SqueezeExcitation
// (ops/conv.toml).
//
// Y has Conv's output shape (onnx/docs/Operators.md#Conv, ONNX's convPoolShapeInference in
// onnx/defs/nn/defs.cc): Y [N, M, O1..On] with, per spatial axis,
//   NOTSET / VALID: O = floor((in + pad_begin + pad_end - ((k-1)*d + 1)) / s) + 1 (VALID: no pads)
//   SAME_UPPER / SAME_LOWER: O = ceil(in / s).
// The registry plugin's Conv inference cannot be linked here (plugins share only the SDK), so
// this is a small reimplementation of the same formula. Z, when present, must have Y's shape.
#include <string>
#include <vector>

#include "conv_fusion_util.h"
#include "registration.h"

namespace ge::fusion {
namespace {

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

void infer_fused_conv(InferContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) ctx.fail("inputs X and W are required");
  const Shape& x = ctx.input_shape(0);
  const Shape& w = ctx.input_shape(1);
  if (x.rank() < 3 || x.rank() > 5) ctx.unsupported("input rank " + std::to_string(x.rank()) + " (only 3, 4 or 5)");
  if (w.rank() != x.rank()) ctx.fail("W " + w.str() + " must have the rank of X " + x.str());
  const size_t n = x.rank() - 2;
  const int64_t group = ctx.has_attr("group") ? ctx.attr_int("group") : 1;
  if (group < 1 || x[1] != w[1] * group || w[0] % group != 0)
    ctx.fail("X " + x.str() + ", W " + w.str() + " and group " + std::to_string(group) + " are inconsistent");
  if (ctx.has_input(2) && !(ctx.input_shape(2) == Shape{w[0]}))
    ctx.fail("B " + ctx.input_shape(2).str() + " must be [" + std::to_string(w[0]) + "]");
  std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  if (ctx.has_attr("kernel_shape") && ctx.attr_ints("kernel_shape") != kernel)
    ctx.fail("kernel_shape [" + join(ctx.attr_ints("kernel_shape")) + "] does not match W " + w.str());
  auto ints = [&](const char* name, std::vector<int64_t> dflt) {
    return ctx.has_attr(name) ? ctx.attr_ints(name) : dflt;
  };
  const auto strides = ints("strides", std::vector<int64_t>(n, 1));
  const auto dilations = ints("dilations", std::vector<int64_t>(n, 1));
  const auto pads = ints("pads", std::vector<int64_t>(2 * n, 0));
  std::string auto_pad = ctx.has_attr("auto_pad") ? ctx.attr_string("auto_pad") : "NOTSET";
  if (auto_pad.empty()) auto_pad = "NOTSET";
  if (strides.size() != n || dilations.size() != n || pads.size() != 2 * n)
    ctx.fail("strides, dilations and pads must have " + std::to_string(n) + ", " + std::to_string(n) + " and " +
             std::to_string(2 * n) + " entries");
  Shape y = x;
  y[1] = w[0];
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = x[i + 2], s = strides[i], eff_k = (kernel[i] - 1) * dilations[i] + 1;
    if (s < 1 || dilations[i] < 1) ctx.fail("strides and dilations must be positive");
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      y[i + 2] = (in + s - 1) / s;
    } else if (auto_pad == "VALID" || auto_pad == "NOTSET") {
      const bool valid = auto_pad == "VALID";
      const int64_t span = in + (valid ? 0 : pads[i] + pads[i + n]) - eff_k;
      if (span < 0) ctx.fail("window " + std::to_string(eff_k) + " is larger than the padded input on axis " + std::to_string(i));
      y[i + 2] = span / s + 1;
    } else {
      ctx.fail("unknown auto_pad '" + auto_pad + "'");
    }
  }
  if (ctx.has_input(3) && !(ctx.input_shape(3) == y))
    ctx.fail("Z " + ctx.input_shape(3).str() + " must have Y's shape " + y.str());
  check_fused_activation(ctx, false);
  ctx.set_output(0, ctx.input_type(0), y);
}

}  // namespace

/// ge.SqueezeExcitation: X [N, C, H, W], W1 [R, C, 1, 1], B1 [R], W2 [C2, R, 1, 1], B2 [C2] →
/// S [N, C2, 1, 1]; activation and gate from ge.FusedConv's list.
void infer_squeeze_excitation(InferContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(3)) ctx.fail("inputs X, W1 and W2 are required");
  const Shape &x = ctx.input_shape(0), &w1 = ctx.input_shape(1), &w2 = ctx.input_shape(3);
  if (x.rank() != 4) ctx.unsupported("input rank " + std::to_string(x.rank()) + " (only 4)");
  if (w1.rank() != 4 || w1[1] != x[1] || w1[2] != 1 || w1[3] != 1)
    ctx.fail("W1 " + w1.str() + " must be [R, " + std::to_string(x[1]) + ", 1, 1]");
  if (w2.rank() != 4 || w2[1] != w1[0] || w2[2] != 1 || w2[3] != 1)
    ctx.fail("W2 " + w2.str() + " must be [C2, " + std::to_string(w1[0]) + ", 1, 1]");
  if (ctx.has_input(2) && !(ctx.input_shape(2) == Shape{w1[0]}))
    ctx.fail("B1 " + ctx.input_shape(2).str() + " must be [" + std::to_string(w1[0]) + "]");
  if (ctx.num_inputs() > 4 && ctx.has_input(4) && !(ctx.input_shape(4) == Shape{w2[0]}))
    ctx.fail("B2 " + ctx.input_shape(4).str() + " must be [" + std::to_string(w2[0]) + "]");
  check_fused_activation(ctx, false);
  check_fused_activation(ctx, false, "gate", "gate_params");
  ctx.set_output(0, ctx.input_type(0), Shape{x[0], w2[0], 1, 1});
}

GE_FUSION_INFER("ge", "FusedConv", infer_fused_conv);
GE_FUSION_INFER("ge", "SqueezeExcitation", infer_squeeze_excitation);

}  // namespace ge::fusion

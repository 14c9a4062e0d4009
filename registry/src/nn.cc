// registry/src/nn.cc — shape inference for Conv, BatchNormalization, pools, Dropout, Softmax.
// Formulas: onnx/docs/Operators.md (#Conv, #MaxPool, #AveragePool) and ONNX's
// convPoolShapeInference (onnx/defs/nn/defs.cc).
#include <algorithm>

#include "infer_util.h"

namespace ge::registry::detail {
namespace {

/// Spatial output extents of a convolution or pooling window (Operators.md#Conv, #MaxPool):
///  NOTSET: out = floor_or_ceil((in + pad_begin + pad_end - ((k-1)*d + 1)) / s) + 1
///  VALID:  the same with zero pads
///  SAME_UPPER / SAME_LOWER: out = ceil(in / s) (the padding is derived from it)
/// With ceil_mode a last window that would start inside the end padding is dropped (the rule
/// Operators.md#MaxPool states since ONNX 1.16 and PyTorch implements); the CPU kernels follow it.
Shape window_output(const InferContext& ctx, const Shape& x, const std::vector<int64_t>& kernel,
                    bool ceil_mode) {
  const size_t n = x.rank() - 2;
  auto strides = ints_attr(ctx, "strides", std::vector<int64_t>(n, 1));
  auto dilations = ints_attr(ctx, "dilations", std::vector<int64_t>(n, 1));
  auto pads = ints_attr(ctx, "pads", std::vector<int64_t>(2 * n, 0));
  std::string auto_pad = string_attr(ctx, "auto_pad", "NOTSET");
  if (auto_pad.empty()) auto_pad = "NOTSET";  // old exporters write ""; the CPU kernels agree
  if (kernel.size() != n)
    ctx.fail("kernel_shape [" + join(kernel) + "] must have " + std::to_string(n) + " entries");
  if (strides.size() != n) ctx.fail("strides [" + join(strides) + "] must have " + std::to_string(n) + " entries");
  if (dilations.size() != n)
    ctx.fail("dilations [" + join(dilations) + "] must have " + std::to_string(n) + " entries");
  if (pads.size() != 2 * n) ctx.fail("pads [" + join(pads) + "] must have " + std::to_string(2 * n) + " entries");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER")
    ctx.fail("unknown auto_pad '" + auto_pad + "'");
  // pads alongside auto_pad is invalid per the spec, but exporters emit pads=[0,...] with
  // VALID; like onnxruntime, auto_pad wins.

  Shape out = x;
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = x[i + 2], k = kernel[i], s = strides[i], d = dilations[i];
    if (k < 1 || s < 1 || d < 1)
      ctx.fail("kernel_shape, strides and dilations must be positive");
    if (pads[i] < 0 || pads[i + n] < 0) ctx.fail("pads [" + join(pads) + "] must be >= 0");
    // Bounds that keep the arithmetic below in int64 (dims are below 2^59, ge/sdk/types.h):
    // (k - 1)·d < 2^62, in + s - 1 and in + pads < 2^61.
    constexpr int64_t kMaxWindow = (int64_t{1} << 31) - 1, kMaxPad = int64_t{1} << 59;
    if (k > kMaxWindow || s > kMaxWindow || d > kMaxWindow)
      ctx.fail("kernel_shape, strides and dilations must be below 2^31 (axis " + std::to_string(i) + ": " +
               std::to_string(k) + ", " + std::to_string(s) + ", " + std::to_string(d) + ")");
    if (pads[i] > kMaxPad || pads[i + n] > kMaxPad) ctx.fail("pads [" + join(pads) + "] must be at most 2^59");
    const int64_t eff_k = (k - 1) * d + 1;
    int64_t o;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      o = (in + s - 1) / s;
    } else {
      const int64_t pb = auto_pad == "VALID" ? 0 : pads[i];
      const int64_t pe = auto_pad == "VALID" ? 0 : pads[i + n];
      const int64_t span = in + pb + pe - eff_k;
      if (span < 0)
        ctx.fail("window " + std::to_string(eff_k) + " is larger than padded input extent " +
                 std::to_string(in + pb + pe) + " on spatial axis " + std::to_string(i));
      o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
      if (ceil_mode && (o - 1) * s >= in + pb) --o;
    }
    out[i + 2] = o;
  }
  return out;
}

void require_spatial_rank(const InferContext& ctx, const Shape& x) {
  // The CPU kernels implement 1-D, 2-D and 3-D windows only.
  if (x.rank() < 3 || x.rank() > 5)
    ctx.unsupported("input rank " + std::to_string(x.rank()) + " (only 3, 4 or 5 is supported)");
}

// Operators.md#Conv: X [N, C, D1..Dn], W [M, C/group, k1..kn], B [M] → Y [N, M, O1..On].
void infer_conv(InferContext& ctx) {
  require_input(ctx, 0, "X");
  require_input(ctx, 1, "W");
  const Shape& x = ctx.input_shape(0);
  const Shape& w = ctx.input_shape(1);
  require_spatial_rank(ctx, x);
  if (w.rank() != x.rank())
    ctx.fail("W " + w.str() + " must have the rank of X " + x.str());
  const int64_t group = int_attr(ctx, "group", 1);
  if (group < 1) ctx.fail("group must be >= 1");
  // W[1]·group computed with an overflow check (a group near INT64_MAX: UBSan fuzz finding).
  int64_t expected = 0;
  if (__builtin_mul_overflow(w[1], group, &expected) || x[1] != expected)
    ctx.fail("X has " + std::to_string(x[1]) + " channels but W " + w.str() + " with group " +
             std::to_string(group) + " expects " +
             (__builtin_mul_overflow(w[1], group, &expected) ? std::string("more than 2^63") : std::to_string(expected)));
  if (w[0] % group != 0)
    ctx.fail("W's output channels " + std::to_string(w[0]) + " are not divisible by group");
  if (ctx.has_input(2) && !(ctx.input_shape(2) == Shape{w[0]}))
    ctx.fail("B " + ctx.input_shape(2).str() + " must be [" + std::to_string(w[0]) + "]");
  std::vector<int64_t> wk(w.dims().begin() + 2, w.dims().end());
  auto kernel = ints_attr(ctx, "kernel_shape", wk);
  if (kernel != wk)
    ctx.fail("kernel_shape [" + join(kernel) + "] does not match W " + w.str());
  Shape y = window_output(ctx, x, kernel, false);
  y[1] = w[0];
  ctx.set_output(0, ctx.input_type(0), y);
}

void infer_pool(InferContext& ctx, bool max_pool) {
  require_input(ctx, 0, "X");
  const Shape& x = ctx.input_shape(0);
  require_spatial_rank(ctx, x);
  if (!ctx.has_attr("kernel_shape")) ctx.fail("missing required attribute kernel_shape");
  const int64_t ceil_mode = int_attr(ctx, "ceil_mode", 0);
  if (ceil_mode != 0 && ceil_mode != 1) ctx.fail("ceil_mode must be 0 or 1");
  if (max_pool) {
    const int64_t storage_order = int_attr(ctx, "storage_order", 0);
    if (storage_order != 0 && storage_order != 1) ctx.fail("storage_order must be 0 or 1");
  }
  Shape y = window_output(ctx, x, ctx.node().attrs.get_ints("kernel_shape"), ceil_mode == 1);
  ctx.set_output(0, ctx.input_type(0), y);
  if (max_pool) set_optional_output(ctx, 1, DataType::Int64, y);  // Indices: flat offsets
}

// Operators.md#GlobalAveragePool: [N, C, D1..Dn] → [N, C, 1..1]. Any rank >= 2, like ONNX's
// own shape inference and the CPU kernel (a reduction, not a window).
void infer_global_pool(InferContext& ctx) {
  require_input(ctx, 0, "X");
  Shape y = ctx.input_shape(0);
  if (y.rank() < 2) ctx.fail("X " + y.str() + " must have rank >= 2");
  for (size_t i = 2; i < y.rank(); ++i) y[i] = 1;
  ctx.set_output(0, ctx.input_type(0), y);
}

// Operators.md#BatchNormalization, inference form only.
void infer_batch_norm(InferContext& ctx) {
  for (size_t i = 0; i < 5; ++i)
    require_input(ctx, i, i == 0 ? "X" : i == 1 ? "scale" : i == 2 ? "B" : i == 3 ? "mean" : "var");
  if (int_attr(ctx, "training_mode", 0) != 0) ctx.unsupported("training_mode=1 not supported");
  if (int_attr(ctx, "spatial", 1) != 1) ctx.unsupported("spatial=0 not supported");
  // The optional outputs (running/saved mean and variance) only exist in training.
  for (size_t i = 1; i < ctx.num_outputs(); ++i)
    if (has_output(ctx, i))
      ctx.unsupported("training outputs (mean/var) not supported; only Y is computed");
  const Shape& x = ctx.input_shape(0);
  if (x.rank() < 2) ctx.fail("X " + x.str() + " must have rank >= 2");
  for (size_t i = 1; i < 5; ++i)
    if (!(ctx.input_shape(i) == Shape{x[1]}))
      ctx.fail("input " + std::to_string(i) + " " + ctx.input_shape(i).str() + " must be [" +
               std::to_string(x[1]) + "] (one value per channel)");
  ctx.set_output(0, ctx.input_type(0), x);
}

// Operators.md#Dropout: identity at inference; mask has X's type before opset 10, bool after.
void infer_dropout(InferContext& ctx) {
  require_input(ctx, 0, "data");
  if (ctx.has_input(1) && ctx.input_shape(1).numel() != 1)
    ctx.fail("ratio must be a scalar, got " + ctx.input_shape(1).str());
  if (ctx.has_input(2)) {
    const Tensor* t = ctx.input_data(2);
    if (!t) ctx.unsupported("Dropout training_mode that is not a compile-time constant");
    if (t->numel() != 1) ctx.fail("training_mode must be a scalar");
    if (t->to_int64_vector()[0] != 0) ctx.unsupported("Dropout training_mode=true not supported");
  }
  const Shape& x = ctx.input_shape(0);
  ctx.set_output(0, ctx.input_type(0), x);
  const DataType mask = ctx.def().since_version < 10 ? ctx.input_type(0) : DataType::Bool;
  set_optional_output(ctx, 1, mask, x);
}

// Operators.md#Softmax: the output has the input's shape; only the axis is checked.
void infer_softmax(InferContext& ctx) {
  require_input(ctx, 0, "input");
  const Shape& x = ctx.input_shape(0);
  const int64_t dflt = ctx.def().since_version >= 13 ? -1 : 1;
  axis_in(ctx, int_attr(ctx, "axis", dflt), static_cast<int64_t>(x.rank()), "axis");
  ctx.set_output(0, ctx.input_type(0), x);
}

}  // namespace

// Operators.md#LpPool (opsets 11-17: no ceil_mode): the window formula of MaxPool. ONNX's
// inference truncates a negative span toward zero (an input shorter than the window gave one
// output instead of a refusal, which only the kernel then said).
void infer_lp_pool(InferContext& ctx) {
  require_input(ctx, 0, "X");
  const Shape& x = ctx.input_shape(0);
  require_spatial_rank(ctx, x);
  if (!ctx.has_attr("kernel_shape")) ctx.fail("missing required attribute kernel_shape");
  ctx.set_output(0, ctx.input_type(0), window_output(ctx, x, ctx.node().attrs.get_ints("kernel_shape"), false));
}

// Operators.md#ConvTranspose: X [N, C, D1..Dn], W [C, M/group, k1..kn] → Y [N, M, O1..On] with
//   output_shape given:      O = output_shape (its last n entries)
//   auto_pad SAME_UPPER/LOWER: O = D · s (the padding is derived from it, output_padding included)
//   otherwise:               O = s·(D − 1) + output_padding + ((k − 1)·d + 1) − pad_begin − pad_end
// ONNX's inference derives SAME pads as for Conv, without output_padding, and so disagreed with
// the spec (and the kernel) when both are given.
void infer_conv_transpose(InferContext& ctx) {
  require_input(ctx, 0, "X");
  require_input(ctx, 1, "W");
  const Shape& x = ctx.input_shape(0);
  const Shape& w = ctx.input_shape(1);
  require_spatial_rank(ctx, x);
  if (w.rank() != x.rank()) ctx.fail("W " + w.str() + " must have the rank of X " + x.str());
  const size_t n = x.rank() - 2;
  const int64_t group = int_attr(ctx, "group", 1);
  if (group < 1) ctx.fail("group must be >= 1");
  if (x[1] != w[0] || x[1] % group != 0)
    ctx.fail("X has " + std::to_string(x[1]) + " channels, W " + w.str() + " with group " + std::to_string(group) +
             " needs W[0] = C divisible by group");
  std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  if (ctx.has_attr("kernel_shape") && ints_attr(ctx, "kernel_shape") != kernel)
    ctx.fail("kernel_shape [" + join(ints_attr(ctx, "kernel_shape")) + "] disagrees with W " + w.str());
  auto strides = ints_attr(ctx, "strides", std::vector<int64_t>(n, 1));
  auto dilations = ints_attr(ctx, "dilations", std::vector<int64_t>(n, 1));
  auto pads = ints_attr(ctx, "pads", std::vector<int64_t>(2 * n, 0));
  auto outpad = ints_attr(ctx, "output_padding", std::vector<int64_t>(n, 0));
  auto out_shape = ints_attr(ctx, "output_shape", {});
  std::string auto_pad = string_attr(ctx, "auto_pad", "NOTSET");
  if (auto_pad.empty()) auto_pad = "NOTSET";
  if (strides.size() != n || dilations.size() != n || outpad.size() != n || pads.size() != 2 * n)
    ctx.fail("strides, dilations, output_padding must have " + std::to_string(n) + " entries and pads " +
             std::to_string(2 * n));
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    ctx.fail("unknown auto_pad '" + auto_pad + "'");
  if (!out_shape.empty() && out_shape.size() != n && out_shape.size() != n + 2)
    ctx.fail("output_shape [" + join(out_shape) + "] must have " + std::to_string(n) + " entries");
  // Extents in 128 bits, then checked against Shape's bound (2^59, ge/sdk/types.h): strides,
  // dilations, pads and output_padding come from the model and may be anything.
  constexpr __int128 kMaxExtent = __int128{1} << 59;
  auto bounded = [&](__int128 v, const std::string& what) {
    if (v > kMaxExtent) ctx.fail(what + " would exceed 2^59");
    return static_cast<int64_t>(v);
  };
  Shape y = x;
  y[1] = bounded(static_cast<__int128>(w[1]) * group, "output channels W[1] x group = " + std::to_string(w[1]) + " x " +
                                                         std::to_string(group));
  for (size_t i = 0; i < n; ++i) {
    if (strides[i] < 1 || dilations[i] < 1 || kernel[i] < 1) ctx.fail("kernel, strides and dilations must be positive");
    if (outpad[i] < 0 || outpad[i] >= std::max(strides[i], dilations[i]))
      ctx.fail("output_padding [" + join(outpad) + "] must be in [0, max(stride, dilation))");
    int64_t o;
    if (!out_shape.empty()) o = out_shape[out_shape.size() - n + i];
    else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")
      o = bounded(static_cast<__int128>(x[i + 2]) * strides[i], "output extent on spatial axis " + std::to_string(i));
    else {
      const __int128 pb = auto_pad == "VALID" ? 0 : pads[i], pe = auto_pad == "VALID" ? 0 : pads[i + n];
      const __int128 e = static_cast<__int128>(strides[i]) * (x[i + 2] - 1) + outpad[i] +
                         static_cast<__int128>(kernel[i] - 1) * dilations[i] + 1 - pb - pe;
      if (e < 1) {
        const std::string v = e >= INT64_MIN ? std::to_string(static_cast<int64_t>(e)) : std::string("below -2^63");
        ctx.fail("output extent " + v + " on spatial axis " + std::to_string(i) + " is not positive");
      }
      o = bounded(e, "output extent on spatial axis " + std::to_string(i));
    }
    if (o < 1) ctx.fail("output extent " + std::to_string(o) + " on spatial axis " + std::to_string(i) + " is not positive");
    y[i + 2] = o;
  }
  ctx.set_output(0, ctx.input_type(0), y);
}

InferTable nn_infer_fns() {
  return {
      {"Conv", infer_conv},
      {"ConvTranspose", infer_conv_transpose},
      {"LpPool", infer_lp_pool},
      {"MaxPool", [](InferContext& c) { infer_pool(c, true); }},
      {"AveragePool", [](InferContext& c) { infer_pool(c, false); }},
      {"GlobalAveragePool", infer_global_pool},
      {"BatchNormalization", infer_batch_norm},
      {"Dropout", infer_dropout},
      {"Softmax", infer_softmax},
  };
}

}  // namespace ge::registry::detail

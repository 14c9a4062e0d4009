// plugins/framework_ops/conv.cc — Conv2d / Conv2D (PyTorch torch.nn.Conv2d, CANN/TensorFlow
// Conv2D) and the article's Conv2dBiasRelu -> ONNX Conv (+ Relu).
//
// Attributes (PyTorch's names): kernel_size, stride, dilation (1 or 2 ints), padding (1 or 2 ints
// applied to both sides of each axis, or 4 in ONNX's pads order [top, left, bottom, right]),
// groups, out_channels, in_channels, bias (0 = no bias when the bias is created), data_format.
// ONNX Conv (onnx/docs/Operators.md#Conv): X [N, C, H, W], W [M, C/group, kh, kw], B [M].
#include "framework_ops.h"
#include "ge/sdk/error.h"

namespace ge::framework_ops {

std::vector<Node*> expand_conv(Node& n, int64_t) {
  Graph& g = *n.graph();
  const std::string who = n.describe();
  const bool relu = n.op_type() == "Conv2dBiasRelu";
  if (relu) {
    const std::string mode = n.attrs.get_string("fuse_mode", "conv_bias_relu");
    if (mode != "conv_bias_relu")
      throw InvalidGraphError(who + ": fuse_mode '" + mode + "' is not one Conv2dBiasRelu computes (conv_bias_relu)");
  }
  Value* x = n.input(0);
  Value* w = n.input(1);
  Value* b = n.input(2);
  if (x->shape.rank() != 4)
    throw InvalidGraphError(who + ": input '" + x->name() + "' has shape " + x->shape.str() + "; a 2-D convolution takes 4 dims");
  const bool nhwc = is_nhwc(n);
  const int64_t C = nhwc ? x->shape[3] : x->shape[1];
  const int64_t groups = n.attrs.get_int("groups", 1);
  if (groups < 1 || C % groups)
    throw InvalidGraphError(who + ": groups = " + std::to_string(groups) + " does not divide the " + std::to_string(C) + " input channels");
  if (n.attrs.has("in_channels") && n.attrs.get_int("in_channels", 0) != C)
    throw InvalidGraphError(who + ": in_channels = " + std::to_string(n.attrs.get_int("in_channels", 0)) +
                            " but input '" + x->name() + "' has " + std::to_string(C) + " channels");
  std::vector<int64_t> kernel;
  if (n.attrs.has("kernel_size")) kernel = per_axis(n, "kernel_size", n.attrs.get_ints("kernel_size"), 2);
  int64_t M = n.attrs.get_int("out_channels", -1);
  if (w) {
    const Shape& ws = w->shape;
    if (ws.rank() != 4 || ws[1] * groups != C)
      throw InvalidGraphError(who + ": weight '" + w->name() + "' has shape " + ws.str() + "; expected [out_channels, " +
                              std::to_string(C / groups) + ", kh, kw]");
    if (M >= 0 && M != ws[0])
      throw InvalidGraphError(who + ": out_channels = " + std::to_string(M) + " but weight '" + w->name() + "' has " +
                              std::to_string(ws[0]));
    if (!kernel.empty() && (kernel[0] != ws[2] || kernel[1] != ws[3]))
      throw InvalidGraphError(who + ": kernel_size [" + std::to_string(kernel[0]) + "," + std::to_string(kernel[1]) +
                              "] but weight '" + w->name() + "' has shape " + ws.str());
    M = ws[0];
    kernel = {ws[2], ws[3]};
  } else {
    if (M < 1) throw InvalidGraphError(who + ": no weight input and no out_channels attribute: the weight's shape is unknown");
    if (kernel.empty()) throw InvalidGraphError(who + ": no weight input and no kernel_size attribute: the weight's shape is unknown");
  }
  Attributes a;
  a.set("kernel_shape", kernel);
  a.set("strides", per_axis(n, "stride", n.attrs.get_ints("stride", {1}), 2));
  a.set("dilations", per_axis(n, "dilation", n.attrs.get_ints("dilation", {1}), 2));
  std::vector<int64_t> pad = n.attrs.get_ints("padding", {0});
  if (pad.size() == 1 || pad.size() == 2) {
    pad = per_axis(n, "padding", pad, 2);
    pad = {pad[0], pad[1], pad[0], pad[1]};
  } else if (pad.size() != 4) {
    throw InvalidGraphError(who + ": attribute 'padding' has " + std::to_string(pad.size()) + " values; expected 1, 2 or 4");
  }
  a.set("pads", pad);
  a.set("group", groups);
  const bool make_bias = !w && !b && n.attrs.get_int("bias", 1) != 0;

  // Everything checked: now change the graph.
  const std::string name = n.name();
  Value* y = n.output(0);
  if (!w) {
    const int64_t fan_in = C / groups * kernel[0] * kernel[1];
    const std::string init = "U(-1/sqrt(" + std::to_string(fan_in) + "), +1/sqrt(" + std::to_string(fan_in) + ")), PyTorch's Conv2d init";
    w = add_param(g, n, "weight", Shape{M, C / groups, kernel[0], kernel[1]},
                  uniform_fan_in(g.name + "/" + name + ".weight", M * fan_in, fan_in), init);
    if (make_bias) b = add_param(g, n, "bias", Shape{M}, uniform_fan_in(g.name + "/" + name + ".bias", M, fan_in), init);
  }
  g.remove_node(&n);
  std::vector<Node*> made;
  Value* in = nhwc ? transpose(g, name + "/to_nchw", x, {0, 3, 1, 2}, made) : x;
  Value* conv_out = (relu || nhwc) ? g.add_value(g.unique_value_name(name + "/conv")) : y;
  made.push_back(add(g, "Conv", name, {in, w, b}, {conv_out}, std::move(a)));
  Value* out = conv_out;
  if (relu) {
    Value* r = nhwc ? g.add_value(g.unique_value_name(name + "/relu")) : y;
    made.push_back(add(g, "Relu", name + "/relu", {out}, {r}));
    out = r;
  }
  if (nhwc) {
    Attributes t;
    t.set("perm", std::vector<int64_t>{0, 2, 3, 1});
    made.push_back(add(g, "Transpose", name + "/to_nhwc", {out}, {y}, std::move(t)));
  }
  return made;
}

}  // namespace ge::framework_ops

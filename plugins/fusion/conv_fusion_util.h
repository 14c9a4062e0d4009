// plugins/fusion/conv_fusion_util.h — what the convolution fusion rules (conv_bn, conv_bias_act,
// conv_add_act) share: reading an activation node, building the fused node, dropping values the
// rewrite orphaned.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/op_registry.h"
#include "ge/sdk/pass.h"

namespace ge::fusion {

/// An activation ge.FusedConv can absorb (its `activation` / `activation_params` attributes).
struct ConvActivation {
  std::string name;           ///< "Relu", "Clip", "Sigmoid", "LeakyRelu", "Tanh", "Elu", "HardSwish", "Swish"
  std::vector<float> params;  ///< Clip: {min, max}; LeakyRelu, Elu: {alpha}
};

/// A float32 constant (with data), of `numel` elements when numel >= 0.
inline bool f32_constant(const Value* v, int64_t numel = -1) {
  return v && v->is_constant() && v->data && v->dtype == DataType::Float32 && (numel < 0 || v->numel() == numel);
}

/// BatchNormalization's per-channel scale γ/√(var + ε) (onnx/docs/Operators.md#BatchNormalization),
/// in double: var + ε and the square root are where small variances lose precision.
inline double bn_scale(float gamma, float var, double eps) {
  return static_cast<double>(gamma) / std::sqrt(static_cast<double>(var) + eps);
}

/// A constant scalar (one element) float, or false.
inline bool const_scalar(const Value* v, float& out) {
  if (!v || !v->data || v->dtype != DataType::Float32 || v->numel() != 1) return false;
  out = v->data->data_as<float>()[0];
  return true;
}

/// Shape inference's check of the `activation` / `activation_params` attributes of ge.FusedConv
/// and (`gelu`: also "Gelu") ge.FusedMatMul (ops/conv.toml, ops/transformer.toml), or of the pair
/// `attr` / `params` (ge.SqueezeExcitation's gate).
inline void check_fused_activation(InferContext& ctx, bool gelu, const std::string& attr = "activation",
                                   const std::string& params = "activation_params") {
  const std::string act = ctx.has_attr(attr) ? ctx.attr_string(attr) : "";
  static const char* const kActs[] = {"", "Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu", "Elu", "HardSwish", "Swish"};
  if (std::find(std::begin(kActs), std::end(kActs), act) == std::end(kActs) && !(gelu && act == "Gelu"))
    ctx.unsupported(attr + " '" + act + "' (only \"\", Relu, Clip, Sigmoid, Tanh, LeakyRelu, Elu, HardSwish, Swish" +
                    (gelu ? ", Gelu" : "") + ")");
  if ((act == "LeakyRelu" || act == "Elu") && ctx.node().attrs.get_floats(params).size() != 1)
    ctx.fail(attr + " " + act + " needs " + params + " = [alpha]");
  if (act == "Clip" && ctx.node().attrs.get_floats(params).size() != 2)
    ctx.fail(attr + " Clip needs " + params + " = [min, max]");
}

/// Reads Relu, Sigmoid, Tanh, HardSwish, LeakyRelu, Elu (alpha with ONNX's defaults, 0.01 and
/// 1.0: onnx/docs/Operators.md) or Clip (bounds as constant inputs since opset 11, attributes
/// before; an omitted bound is ±inf) into `a`; false when not absorbable (non-constant Clip
/// bounds). Swish (x·Sigmoid(x), no ONNX op) is matched by conv_bias_act itself.
inline bool read_activation(const Node& n, ConvActivation& a) {
  if (n.domain() != "" || n.num_outputs() != 1) return false;
  a = {n.op_type(), {}};
  if (n.op_type() == "Relu" || n.op_type() == "Sigmoid" || n.op_type() == "Tanh" || n.op_type() == "HardSwish")
    return true;
  if (n.op_type() == "LeakyRelu" || n.op_type() == "Elu") {
    a.params = {n.attrs.get_float("alpha", n.op_type() == "LeakyRelu" ? 0.01f : 1.0f)};
    return true;
  }
  if (n.op_type() != "Clip") return false;
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (n.attrs.has("min") || n.attrs.has("max")) {  // Clip-1/6
    lo = n.attrs.get_float("min", lo);
    hi = n.attrs.get_float("max", hi);
  }
  if (n.input(1) && !const_scalar(n.input(1), lo)) return false;
  if (n.input(2) && !const_scalar(n.input(2), hi)) return false;
  a.params = {lo, hi};
  return true;
}

/// A float32 Conv, or a ge.FusedConv whose activation is none (and, unless `allow_z`, no Z):
/// the convolutions an elementwise consumer may still be folded into.
inline bool is_open_conv(const Node& n, bool allow_z) {
  if (!n.output(0) || n.output(0)->dtype != DataType::Float32) return false;
  if (n.domain() == "" && n.op_type() == "Conv") return true;
  return n.domain() == "ge" && n.op_type() == "FusedConv" && n.attrs.get_string("activation", "").empty() &&
         (allow_z || !n.input(3));
}

/// Removes a value nothing produces or reads any more (an orphaned intermediate or constant).
inline void remove_if_dead(Graph& g, Value* v) {
  if (v && !v->producer() && v->uses().empty() && !v->is_graph_input() && !v->is_graph_output())
    g.remove_value(v);
}

/// Replaces `conv` (and the absorbed `extra` nodes, consumers of conv) by one ge.FusedConv
/// writing `y` (the last absorbed node's output, so names and graph outputs stay), keeping
/// conv's name and attributes. Z (may be null) is the residual; `act` may be null.
inline Node* replace_with_fused_conv(Graph& g, PassContext& ctx, Node* conv, const std::vector<Node*>& extra,
                                     Value* y, Value* bias, Value* z, const ConvActivation* act) {
  std::vector<Value*> dead;
  Attributes attrs = conv->attrs;
  if (act) {
    attrs.set("activation", act->name);
    if (!act->params.empty()) attrs.set("activation_params", act->params);
  }
  const std::string name = conv->name();
  Value* x = conv->input(0);
  Value* w = conv->input(1);
  for (Node* n : extra) {
    for (Value* v : n->inputs()) dead.push_back(v);
    g.remove_node(n);
  }
  for (Value* v : conv->inputs()) dead.push_back(v);
  dead.push_back(conv->output(0));
  g.remove_node(conv);
  if (!g.opsets.count("ge")) g.opsets["ge"] = 1;  // the fused op's domain version (ops/conv.toml)
  Node* f = g.add_node("FusedConv", name, {x, w, bias, z}, {y}, std::move(attrs), "ge");
  ctx.infer_shapes(*f);
  std::sort(dead.begin(), dead.end());
  dead.erase(std::unique(dead.begin(), dead.end()), dead.end());  // remove each value once
  for (Value* v : dead)
    if (v != y) remove_if_dead(g, v);
  // The pass manager restores topological order once the rule has run (apply_rule).
  return f;
}

}  // namespace ge::fusion

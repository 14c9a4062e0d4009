// plugins/fusion/batchnorm_relu.cc — batchnorm_relu: an inference BatchNormalization followed by
// Relu, with no Conv before it to fold into (conv_bn takes those first), becomes one depthwise
// 1×1 ge.FusedConv with the Relu.
//
// BatchNormalization (onnx/docs/Operators.md#BatchNormalization, inference mode) is per channel
//   y = γ·(x − mean)/√(var + ε) + β = a·x + b,   a = γ/√(var + ε),  b = β − mean·a,
// which is a depthwise convolution with a 1×1 kernel W[c,0,0,0] = a[c] and bias B[c] = b[c]
// (group = C; onnx/docs/Operators.md#Conv). Pre-activation networks read every Concat or
// residual sum through norm → relu before the next conv (DenseNet, Huang et al. 2017; ResNet v2,
// He et al. 2016): two passes over the tensor become one. ONNX Runtime's NCHWc transformer
// turns such a BatchNormalization into the same depthwise convolution and fuses the Relu into
// it (onnxruntime/core/optimizer/nchwc_transformer.cc). The cpu backend runs it as a
// per-channel affine loop (conv_channel_affine.cc).
// a and b are folded as the BatchNormalization kernel folds them (in double, rounded once), so
// the cpu result equals BatchNormalization then Relu bit for bit; another backend may fold the
// formula differently, hence Reassociates.
#include <algorithm>
#include <string>
#include <vector>

#include "conv_fusion_util.h"
#include "registration.h"

namespace ge::fusion {
namespace {

using P = Pattern;

class BatchNormReluRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {
        "batchnorm_relu", NumericsEffect::Reassociates, OptLevel::O2, 45,
        "BatchNormalization (constant statistics, no Conv before it) + Relu -> depthwise 1x1 ge.FusedConv with Relu"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Relu"}; }

  bool match(Node& root, const PassContext& ctx, Match& m) const override {
    static const P pat =
        P::op("Relu", {P::op("BatchNormalization", {P::any("x"), P::constant("scale"), P::constant("beta"),
                                                    P::constant("mean"), P::constant("var")})
                           .as("bn")})
            .as("root");
    if (!match_pattern(pat, root, m)) return false;
    const Node* bn = m.node("bn");
    const Value* x = m.value("x");
    if (bn->attrs.get_int("training_mode", 0) != 0) return false;
    if (root.graph()->opset("") < 9 && bn->attrs.get_int("spatial", 1) == 0) return false;  // per-activation statistics
    for (size_t i = 1; i < bn->num_outputs(); ++i)
      if (bn->output(i) && (!bn->output(i)->uses().empty() || bn->output(i)->is_graph_output())) return false;
    if (x->dtype != DataType::Float32 || x->shape.rank() != 4) return false;
    const int64_t C = x->shape[1];
    if (C <= 0) return false;
    for (const char* k : {"scale", "beta", "mean", "var"})
      if (!f32_constant(m.value(k), C)) return false;
    return interior_is_private(m, "root") && fuse_flags_allow(m, "root", ctx.ops(), *root.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    Node* root = m.node("root");
    Node* bn = m.node("bn");
    Value* x = m.value("x");
    const int64_t C = x->shape[1];
    const double eps = bn->attrs.get_float("epsilon", 1e-5f);
    const float *gam = m.value("scale")->data->data_as<float>(), *beta = m.value("beta")->data->data_as<float>(),
                *mean = m.value("mean")->data->data_as<float>(), *var = m.value("var")->data->data_as<float>();
    Tensor w = Tensor::allocate(DataType::Float32, Shape{C, 1, 1, 1}),
           b = Tensor::allocate(DataType::Float32, Shape{C});
    for (int64_t c = 0; c < C; ++c) {
      const double a = bn_scale(gam[c], var[c], eps);
      w.data_as<float>()[c] = float(a);
      b.data_as<float>()[c] = float(double(beta[c]) - double(mean[c]) * a);
    }
    const std::string base = bn->output(0)->name();
    Value* wv = g.add_constant(g.unique_value_name(base + "_scale"), std::move(w));
    Value* bv = g.add_constant(g.unique_value_name(base + "_shift"), std::move(b));
    std::vector<Value*> dead(bn->inputs().begin() + 1, bn->inputs().end());
    for (size_t i = 0; i < bn->num_outputs(); ++i) dead.push_back(bn->output(i));
    Value* y = root->output(0);
    const std::string name = root->name();
    g.remove_node(root);
    g.remove_node(bn);
    if (g.opset("ge") < 1) g.opsets["ge"] = 1;
    Attributes at;
    at.set("group", C);
    at.set("kernel_shape", std::vector<int64_t>{1, 1});
    at.set("activation", std::string("Relu"));
    Node* f = g.add_node("FusedConv", g.find_node(name) ? "" : name, {x, wv, bv}, {y}, std::move(at), "ge");
    ctx.infer_shapes(*f);
    std::sort(dead.begin(), dead.end());
    dead.erase(std::unique(dead.begin(), dead.end()), dead.end());
    for (Value* v : dead) remove_if_dead(g, v);
  }
};

}  // namespace

GE_FUSION_RULE(BatchNormReluRule);

}  // namespace ge::fusion

// plugins/fusion/conv_bn.cc — conv_bn: fold an inference BatchNormalization into the Conv before it.
//
// BatchNormalization (onnx/docs/Operators.md#BatchNormalization, inference mode):
//   y = γ·(x − mean)/√(var + ε) + β, per channel. With x = W∗X + B per output channel m and
//   s[m] = γ[m]/√(var[m] + ε):   W'[m,…] = W[m,…]·s[m],   B'[m] = (B[m] − mean[m])·s[m] + β[m]
// (the folding of Jacob et al. 2018, §3.2; ONNX Runtime's conv_bn_fusion.cc). The output channel
// is W's first axis for every group count, so grouped and depthwise Conv fold the same way.
// Numerics: reassociates (the scale is applied to the weights before the accumulation).
#include <algorithm>

#include "conv_fusion_util.h"
#include "registration.h"

namespace ge::fusion {
namespace {

using P = Pattern;


class ConvBnRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"conv_bn", NumericsEffect::Reassociates, OptLevel::O2, 50,
            "Conv + BatchNormalization (constant weights and statistics) → Conv with folded W and B"};
  }
  std::vector<std::string> anchor_ops() const override { return {"BatchNormalization"}; }

  bool match(Node& bn, const PassContext& ctx, Match& m) const override {
    static const P pat = P::op("BatchNormalization", {P::op("Conv").as("conv"), P::constant("scale"), P::constant("beta"),
                                                      P::constant("mean"), P::constant("var")})
                             .as("bn");
    if (!match_pattern(pat, bn, m)) return false;
    // Inference form only: one output (or unused training outputs), training_mode off.
    if (bn.attrs.get_int("training_mode", 0) != 0) return false;
    for (size_t i = 1; i < bn.num_outputs(); ++i)
      if (bn.output(i) && (!bn.output(i)->uses().empty() || bn.output(i)->is_graph_output())) return false;
    Node* conv = m.node("conv");
    const Value* w = conv->input(1);
    if (!f32_constant(w) || w->shape.rank() < 3 || (conv->input(2) && !f32_constant(conv->input(2)))) return false;
    const int64_t M = w->shape[0];
    for (const char* k : {"scale", "beta", "mean", "var"})
      if (!f32_constant(m.value(k), M)) return false;
    return interior_is_private(m, "bn") && fuse_flags_allow(m, "conv", ctx.ops(), *bn.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    Node* bn = m.node("bn");
    Node* conv = m.node("conv");
    Value* wv = conv->input(1);
    Value* bv = conv->input(2);
    const int64_t M = wv->shape[0], per = wv->numel() / M;
    const double eps = bn->attrs.get_float("epsilon", 1e-5f);
    const float *gam = m.value("scale")->data->data_as<float>(), *beta = m.value("beta")->data->data_as<float>(),
                *mean = m.value("mean")->data->data_as<float>(), *var = m.value("var")->data->data_as<float>();
    const float* w = wv->data->data_as<float>();
    const float* b = bv ? bv->data->data_as<float>() : nullptr;
    Tensor w2 = Tensor::allocate(DataType::Float32, wv->shape), b2 = Tensor::allocate(DataType::Float32, Shape{M});
    float *wo = w2.data_as<float>(), *bo = b2.data_as<float>();
    for (int64_t c = 0; c < M; ++c) {
      const double s = bn_scale(gam[c], var[c], eps);
      for (int64_t i = 0; i < per; ++i) wo[c * per + i] = float(w[c * per + i] * s);
      bo[c] = float(((b ? double(b[c]) : 0.0) - mean[c]) * s + beta[c]);
    }
    // New constants (the old ones may be shared with other nodes); the Conv is rebuilt so that it
    // writes BN's output value, which keeps its name and any graph-output slot.
    Value* nw = g.add_constant(g.unique_value_name(wv->name() + "_bn"), std::move(w2));
    Value* nb = g.add_constant(g.unique_value_name(bv ? bv->name() + "_bn" : conv->name() + "_bias"), std::move(b2));
    Value* y = bn->output(0);
    std::vector<Value*> dead(bn->inputs().begin(), bn->inputs().end());
    dead.push_back(wv);
    dead.push_back(bv);
    for (size_t i = 1; i < bn->num_outputs(); ++i) dead.push_back(bn->output(i));
    const std::string name = conv->name();
    Attributes attrs = conv->attrs;
    Value* x = conv->input(0);
    g.remove_node(bn);
    g.remove_node(conv);
    Node* n = g.add_node("Conv", name, {x, nw, nb}, {y}, std::move(attrs));
    ctx.infer_shapes(*n);
    std::sort(dead.begin(), dead.end());
    dead.erase(std::unique(dead.begin(), dead.end()), dead.end());
    for (Value* v : dead) remove_if_dead(g, v);
    // The pass manager restores topological order once the rule has run (apply_rule).
  }
};

}  // namespace

GE_FUSION_RULE(ConvBnRule);

}  // namespace ge::fusion

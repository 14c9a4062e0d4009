// plugins/fusion/conv_bias_act.cc — conv_bias_act: a per-channel constant bias Add and an
// activation (Relu, Clip with constant bounds, Sigmoid, Tanh, LeakyRelu, Elu, HardSwish, and
// Swish = y·Sigmoid(y), PyTorch's SiLU) after a Conv become part of the Conv:
//   Add(Conv(X, W, B), b)          → Conv(X, W, B + b)     b: [M,1,…,1] or [1,M,1,…,1]
//   act(Conv(X, W, B))             → ge.FusedConv(X, W, B) {activation}
//   Mul(y, Sigmoid(y)), y = Conv(X, W, B) → ge.FusedConv(X, W, B) {activation = "Swish"}
// The two forms compose (anchors are visited in topological order, so the Add folds first and
// the activation then sees the Conv). ge.FusedConv without activation and Z is treated as a Conv.
// The activation runs as a oneDNN eltwise post-op (cpu_backend/fused_conv.cc), like ONNX
// Runtime's conv_activation_fusion.cc. Numerics: reassociates — B + b is rounded once, and a
// Conv with post-ops may get another oneDNN implementation (accumulation order) than without.
#include <algorithm>

#include "conv_fusion_util.h"
#include "registration.h"

namespace ge::fusion {
namespace {

using P = Pattern;

/// A constant float32 per-output-channel bias for a conv output of shape y: [M,1,…,1] (rank-1
/// dims, broadcast from the right) or [1,M,1,…,1].
bool is_channel_bias(const Value* b, const Shape& y) {
  if (!b || !b->is_constant() || b->dtype != DataType::Float32 || y.rank() < 3) return false;
  const Shape& s = b->shape;
  const size_t lead = s.rank() == y.rank() ? 1 : s.rank() + 1 == y.rank() ? 0 : 99;
  if (lead == 99 || (lead == 1 && s[0] != 1)) return false;
  for (size_t i = lead; i < s.rank(); ++i)
    if (s[i] != (i == lead ? y[1] : 1)) return false;
  return true;
}

class ConvBiasActRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"conv_bias_act", NumericsEffect::Reassociates, OptLevel::O2, 40,
            "Conv + per-channel bias Add → Conv with bias; Conv + Relu/Clip/Sigmoid/Tanh/LeakyRelu/Elu/HardSwish/"
            "Swish → ge.FusedConv"};
  }
  std::vector<std::string> anchor_ops() const override {
    return {"Add", "Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu", "Elu", "HardSwish", "Mul"};
  }

  bool match(Node& n, const PassContext& ctx, Match& m) const override {
    static const P add = P::op("Add", {P::op("Conv|ge.FusedConv").as("conv"), P::constant("b")}).as("root").commutative();
    static const P act =
        P::op("Relu|Clip|Sigmoid|Tanh|LeakyRelu|Elu|HardSwish", {P::op("Conv|ge.FusedConv").as("conv")}).as("root");
    // The same capture twice is the same value: y · Sigmoid(y).
    static const P swish = P::op("Mul", {P::op("Sigmoid", {P::any("y")}).as("sig"), P::any("y")}).as("root").commutative();
    if (n.domain() != "") return false;
    if (n.op_type() == "Mul") {
      if (!match_pattern(swish, n, m)) return false;
      Node* conv = m.value("y")->producer();
      if (!conv || !is_open_conv(*conv, true) || m.value("y")->is_graph_output()) return false;
      if (!(conv->output(0)->shape == n.output(0)->shape)) return false;
      m.nodes["conv"] = conv;
    } else if (n.op_type() == "Add") {
      if (!match_pattern(add, n, m)) return false;
      Node* conv = m.node("conv");
      if (!is_open_conv(*conv, false) || !is_channel_bias(m.value("b"), conv->output(0)->shape)) return false;
      // An existing bias must be constant too: it is summed with b at compile time.
      if (conv->input(2) && !conv->input(2)->is_constant()) return false;
      if (!(n.output(0)->shape == conv->output(0)->shape)) return false;
    } else {
      if (!match_pattern(act, n, m)) return false;
      ConvActivation a;
      if (!is_open_conv(*m.node("conv"), true) || !read_activation(n, a)) return false;
    }
    return interior_is_private(m, "root") && fuse_flags_allow(m, "conv", ctx.ops(), *n.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    Node* root = m.node("root");
    Node* conv = m.node("conv");
    Value* y = root->output(0);
    if (root->op_type() == "Mul") {
      const ConvActivation swish{"Swish", {}};
      replace_with_fused_conv(g, ctx, conv, {m.node("sig"), root}, y, conv->input(2), conv->input(3), &swish);
      return;
    }
    if (root->op_type() != "Add") {
      ConvActivation a;
      read_activation(*root, a);
      replace_with_fused_conv(g, ctx, conv, {root}, y, conv->input(2), conv->input(3), &a);
      return;
    }
    // Bias: B' = B + b in a new constant (B may be shared).
    const Value* b = m.value("b");
    const Value* old = conv->input(2);
    const int64_t M = conv->output(0)->shape[1];
    Tensor nb = Tensor::allocate(DataType::Float32, Shape{M});
    for (int64_t c = 0; c < M; ++c)
      nb.data_as<float>()[c] = b->data->data_as<float>()[c] + (old ? old->data->data_as<float>()[c] : 0.f);
    Value* bias = g.add_constant(g.unique_value_name(conv->name() + "_bias"), std::move(nb));
    if (conv->op_type() == "FusedConv") {
      replace_with_fused_conv(g, ctx, conv, {root}, y, bias, nullptr, nullptr);
      return;
    }
    std::vector<Value*> dead = {conv->output(0), conv->input(2), m.value("b")};
    const std::string name = conv->name();
    Attributes attrs = conv->attrs;
    Value *x = conv->input(0), *w = conv->input(1);
    g.remove_node(root);
    g.remove_node(conv);
    Node* nc = g.add_node("Conv", name, {x, w, bias}, {y}, std::move(attrs));
    ctx.infer_shapes(*nc);
    std::sort(dead.begin(), dead.end());
    dead.erase(std::unique(dead.begin(), dead.end()), dead.end());
    for (Value* v : dead) remove_if_dead(g, v);
    // The pass manager restores topological order once the rule has run (apply_rule).
  }
};

}  // namespace

GE_FUSION_RULE(ConvBiasActRule);

}  // namespace ge::fusion

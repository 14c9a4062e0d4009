// plugins/fusion/conv_add_act.cc — conv_add_act: a residual Add (another tensor of the conv
// output's shape) and an optional activation after a Conv become one ge.FusedConv with Z:
//   Add(Conv(X, W, B), Z)            → ge.FusedConv(X, W, B, Z)   (also a two-input Sum)
//   act(ge.FusedConv(X, W, B, Z))    → ge.FusedConv(X, W, B, Z) {activation}   (Relu/Clip/Sigmoid)
// so Conv → Add → Relu (resnet's block end) becomes one kernel: oneDNN's sum post-op adds Z in
// the conv's output pass, then the eltwise post-op (cpu_backend/fused_conv.cc; ONNX Runtime's
// conv_add_act_fusion.cc does the same). Runs after conv_bias_act (priority 30 < 40), so a
// per-channel constant bias has already become Conv's B and only true residuals remain here.
// Numerics: reassociates (the conv may get another oneDNN implementation with post-ops).
#include "conv_fusion_util.h"
#include "registration.h"

namespace ge::fusion {
namespace {

using P = Pattern;

/// Add, or Sum of two inputs (ONNX Sum is elementwise a + b then; ShuffleNet v1 exports its
/// residuals so). Shapes are checked by the caller: no broadcast.
bool is_residual_add(const Node& n) {
  return n.op_type() == "Add" || (n.op_type() == "Sum" && n.num_inputs() == 2);
}

class ConvAddActRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"conv_add_act", NumericsEffect::Reassociates, OptLevel::O2, 30,
            "Conv + residual Add [+ Relu/Clip/Sigmoid] → ge.FusedConv with Z"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Add", "Sum", "Relu", "Clip", "Sigmoid"}; }

  bool match(Node& n, const PassContext& ctx, Match& m) const override {
    static const P act = P::op("Relu|Clip|Sigmoid", {P::op("ge.FusedConv").as("conv")}).as("root");
    if (n.domain() != "") return false;
    if (!is_residual_add(n)) {
      // The activation after an already fused residual (the Add anchor fires first in
      // topological order).
      ConvActivation a;
      if (!match_pattern(act, n, m) || !m.node("conv")->input(3) || !is_open_conv(*m.node("conv"), true) ||
          !read_activation(n, a))
        return false;
      return interior_is_private(m, "root") && fuse_flags_allow(m, "conv", ctx.ops(), *n.graph());
    }
    // Either input may be the conv; prefer input 0, as ONNX Runtime does.
    for (int side = 0; side < 2; ++side) {
      m = Match{};
      Value* cv = n.input(side);
      Value* z = n.input(1 - side);
      Node* conv = cv ? cv->producer() : nullptr;
      if (!conv || !z || z == cv || !is_open_conv(*conv, false) || cv->producer_output() != 0) continue;
      // Same shape, no broadcast: Z is read element for element in the conv's output layout.
      if (!(z->shape == cv->shape) || !(n.output(0)->shape == cv->shape) || z->dtype != DataType::Float32) continue;
      m.nodes = {{"root", &n}, {"conv", conv}};
      m.values = {{"root", n.output(0)}, {"conv", cv}, {"z", z}};
      if (interior_is_private(m, "root") && fuse_flags_allow(m, "conv", ctx.ops(), *n.graph())) return true;
    }
    return false;
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    Node* root = m.node("root");
    Node* conv = m.node("conv");
    if (is_residual_add(*root)) {
      replace_with_fused_conv(g, ctx, conv, {root}, root->output(0), conv->input(2), m.value("z"), nullptr);
    } else {
      ConvActivation a;
      read_activation(*root, a);
      replace_with_fused_conv(g, ctx, conv, {root}, root->output(0), conv->input(2), conv->input(3), &a);
    }
  }
};

}  // namespace

GE_FUSION_RULE(ConvAddActRule);

}  // namespace ge::fusion

// plugins/fusion/gemm_act.cc — rule `gemm_act`: ge.FusedMatMul / MatMul / Gemm followed by an
// activation → ge.FusedMatMul with that activation (oneDNN eltwise post-op: one pass over the
// output instead of two). The activations are ge.Gelu and ge.FusedConv's list (conv_bias_act reads
// them the same way): Relu, Clip with constant bounds, Sigmoid, Tanh, LeakyRelu, Elu, HardSwish,
// and Swish = y·Sigmoid(y) (PyTorch's SiLU):
//   Mul(y, Sigmoid(y)), y = MatMul(A, B) → ge.FusedMatMul(A, B) {activation = "Swish"}
//
// Gemm is converted only when it is a plain product plus bias: transA = 0, alpha = beta = 1 and
// C absent or broadcast on the last dim; transB is kept as FusedMatMul's transB. Under strict
// numerics only the exact activations are fused — Relu, LeakyRelu and Clip (a compare and at most
// one multiply, the same bits in oneDNN's post-op as in their own kernels; bert_small at strict O2
// stays bitwise equal to O0); the transcendental ones round differently in oneDNN. A ge.Gelu with
// a bias input is left to its own kernel (bias_gelu made it because no GEMM was next to it).
#include "conv_fusion_util.h"
#include "registration.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

class GemmActRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"gemm_act", NumericsEffect::Exact, OptLevel::O2, 50,
            "FusedMatMul/MatMul/Gemm + Relu/Clip/Sigmoid/Tanh/LeakyRelu/Elu/HardSwish/Swish/Gelu -> ge.FusedMatMul "
            "with activation"};
  }
  std::vector<std::string> anchor_ops() const override {
    return {"Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu", "Elu", "HardSwish", "Gelu", "Mul"};
  }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    using P = Pattern;
    static const P act =
        P::op("Relu|Clip|Sigmoid|Tanh|LeakyRelu|Elu|HardSwish|ge.Gelu", {P::op("ge.FusedMatMul|MatMul|Gemm").as("gemm")})
            .as("act");
    // The same capture twice is the same value: y · Sigmoid(y).
    static const P swish = P::op("Mul", {P::op("Sigmoid", {P::any("y")}).as("sig"), P::any("y")}).as("act").commutative();
    if (anchor.op_type() == "Mul") {
      if (anchor.domain() != "" || ctx.strict_numerics() || !match_pattern(swish, anchor, m)) return false;
      Node* gm = m.value("y")->producer();
      if (!gm || m.value("y")->is_graph_output() || !(gm->output(0)->shape == anchor.output(0)->shape)) return false;
      if (!(gm->op_type() == "MatMul" && gm->domain() == "") && !(gm->op_type() == "Gemm" && gm->domain() == "") &&
          !trf::is_ge(*gm, "FusedMatMul"))
        return false;
      m.nodes["gemm"] = gm;
    } else {
      if (!match_pattern(act, anchor, m)) return false;
      if (anchor.op_type() == "Gelu") {
        if (anchor.num_inputs() > 1 && anchor.input(1)) return false;
      } else {
        ConvActivation a;
        if (!read_activation(anchor, a)) return false;
        const bool exact = a.name == "Relu" || a.name == "LeakyRelu" || a.name == "Clip";
        if (ctx.strict_numerics() && !exact) return false;
      }
    }
    const Node* gm = m.node("gemm");
    if (gm->output(0)->dtype != DataType::Float32) return false;
    if (trf::is_ge(*gm, "FusedMatMul")) {
      if (!gm->attrs.get_string("activation", "").empty()) return false;
    } else if (gm->op_type() == "MatMul") {
      if (gm->input(0)->shape.rank() < 2 || gm->input(1)->shape.rank() != 2) return false;
    } else {  // Gemm
      const Attributes& at = gm->attrs;
      if (at.get_int("transA", 0) != 0 || at.get_float("alpha", 1.f) != 1.f || at.get_float("beta", 1.f) != 1.f)
        return false;
      if (gm->input(2) && !trf::is_last_dim_bias(gm->input(2), gm->output(0)->shape)) return false;
    }
    return interior_is_private(m, "act") && fuse_flags_allow(m, "act", ctx.ops(), *anchor.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    const Node* gm = m.node("gemm");
    const Node* act = m.node("act");
    Attributes at;
    if (act->op_type() == "Mul") {
      at.set("activation", std::string("Swish"));
    } else if (act->op_type() == "Gelu") {
      at.set("activation", std::string("Gelu"));
    } else {
      ConvActivation a;
      read_activation(*act, a);
      at.set("activation", a.name);
      if (!a.params.empty()) at.set("activation_params", a.params);
    }
    at.set("transB", gm->attrs.get_int("transB", 0));  // MatMul has none: 0
    std::vector<Value*> in{gm->input(0), gm->input(1)};
    if (gm->op_type() != "MatMul" && gm->input(2)) in.push_back(gm->input(2));
    trf::replace_match(g, ctx, m, "act", "FusedMatMul", in, at);
  }
};

GE_FUSION_RULE(GemmActRule);

}  // namespace
}  // namespace ge::fusion

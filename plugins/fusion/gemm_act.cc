// plugins/fusion/gemm_act.cc — rule `gemm_act`: ge.FusedMatMul / MatMul / Gemm followed by Relu,
// Sigmoid or ge.Gelu → ge.FusedMatMul with that activation (oneDNN eltwise post-op: one pass
// over the output instead of two).
//
// Gemm is converted only when it is a plain product plus bias: transA = 0, alpha = beta = 1 and
// C absent or broadcast on the last dim; transB is kept as FusedMatMul's transB. Under strict
// numerics only Relu is fused (bert_small at strict O2 stays bitwise equal to O0). A ge.Gelu with
// a bias input is left to its own kernel (bias_gelu made it because no GEMM was next to it).
#include "registration.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

class GemmActRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"gemm_act", NumericsEffect::Exact, OptLevel::O2, 50,
            "FusedMatMul/MatMul/Gemm + Relu/Sigmoid/Gelu -> ge.FusedMatMul with activation"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Relu", "Sigmoid", "Gelu"}; }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    static const Pattern p =
        Pattern::op("Relu|Sigmoid|ge.Gelu", {Pattern::op("ge.FusedMatMul|MatMul|Gemm").as("gemm")}).as("act");
    if (!match_pattern(p, anchor, m)) return false;
    if (anchor.op_type() == "Gelu" && (anchor.num_inputs() > 1 && anchor.input(1))) return false;
    // oneDNN's logistic rounds differently from the Sigmoid kernel; Relu is exact (a max with 0)
    // and Gelu only exists when the reassociating `gelu` rule ran, so only Sigmoid needs this.
    if (ctx.strict_numerics() && anchor.op_type() == "Sigmoid") return false;
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
    Attributes at;
    at.set("activation", m.node("act")->op_type());
    at.set("transB", gm->attrs.get_int("transB", 0));  // MatMul has none: 0
    std::vector<Value*> in{gm->input(0), gm->input(1)};
    if (gm->op_type() != "MatMul" && gm->input(2)) in.push_back(gm->input(2));
    trf::replace_match(g, ctx, m, "act", "FusedMatMul", in, at);
  }
};

GE_FUSION_RULE(GemmActRule);

}  // namespace
}  // namespace ge::fusion

// plugins/fusion/bias_gelu.cc — rule `bias_gelu`: Add(x, bias) → ge.Gelu → ge.Gelu(x, bias)
// (ORT's BiasGelu: the bias add happens in the Gelu pass instead of a pass of its own).
//
// Design (fewest kernels): when the Add is a MatMul's bias, matmul_add (priority 60) has already
// made it a ge.FusedMatMul and gemm_act (50) folds the Gelu into that GEMM's epilogue, so this
// rule (40) only sees Adds that no GEMM could absorb. The bias must be a constant broadcast
// along the last dim only, so the Add keeps x's shape.
#include "registration.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

class BiasGeluRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"bias_gelu", NumericsEffect::Exact, OptLevel::O2, 40,
            "Add(constant bias on the last dim) -> ge.Gelu => ge.Gelu with a bias input"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Gelu"}; }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    static const Pattern p =
        Pattern::op("ge.Gelu", {Pattern::op("Add", {Pattern::any("x"), Pattern::constant("bias")}).as("add").commutative()})
            .as("gelu");
    if (anchor.num_inputs() > 1 && anchor.input(1)) return false;  // already has a bias
    if (!match_pattern(p, anchor, m)) return false;
    const Value* x = m.value("x");
    if (x->dtype != DataType::Float32 || x->shape != anchor.output(0)->shape) return false;
    if (!trf::is_last_dim_bias(m.value("bias"), x->shape)) return false;
    return interior_is_private(m, "gelu") && fuse_flags_allow(m, "gelu", ctx.ops(), *anchor.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    trf::replace_match(g, ctx, m, "gelu", "Gelu", {m.value("x"), m.value("bias")}, {});
  }
};

GE_FUSION_RULE(BiasGeluRule);

}  // namespace
}  // namespace ge::fusion

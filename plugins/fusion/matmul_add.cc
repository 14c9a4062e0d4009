// plugins/fusion/matmul_add.cc — rule `matmul_add`: MatMul(A, B) + bias → ge.FusedMatMul(A, B, bias).
//
// The bias must be a constant broadcast along the last dim only (a Linear layer's bias), so the
// Add adds nothing to the GEMM's output shape and oneDNN applies it in the GEMM epilogue instead
// of a second pass over the output (ORT's MatMulAddFusion / com.microsoft.FusedMatMul idea).
// B must be 2-D (a weight matrix): the kernel folds A's batch dims into one GEMM.
#include "registration.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

class MatMulAddRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"matmul_add", NumericsEffect::Exact, OptLevel::O2, 60,
            "MatMul + constant bias on the last dim -> ge.FusedMatMul (bias in the GEMM epilogue)"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Add"}; }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    static const Pattern p =
        Pattern::op("Add", {Pattern::op("MatMul", {Pattern::any("a"), Pattern::any("b")}).as("matmul"),
                            Pattern::constant("bias")})
            .as("add")
            .commutative();
    if (!match_pattern(p, anchor, m)) return false;
    const Node* mm = m.node("matmul");
    const Value *a = m.value("a"), *b = m.value("b");
    if (a->shape.rank() < 2 || b->shape.rank() != 2 || a->dtype != DataType::Float32) return false;
    if (!trf::is_last_dim_bias(m.value("bias"), mm->output(0)->shape)) return false;
    if (anchor.output(0)->shape != mm->output(0)->shape) return false;
    return interior_is_private(m, "add") && fuse_flags_allow(m, "add", ctx.ops(), *anchor.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    Attributes at;
    at.set("activation", std::string());
    trf::replace_match(g, ctx, m, "add", "FusedMatMul", {m.value("a"), m.value("b"), m.value("bias")}, at);
  }
};

GE_FUSION_RULE(MatMulAddRule);

}  // namespace
}  // namespace ge::fusion

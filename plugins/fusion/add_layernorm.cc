// plugins/fusion/add_layernorm.cc — rule `add_layernorm`: residual Add → ge.LayerNormalization
// → one ge.LayerNormalization with a Skip input (ORT's SkipLayerNormalization): the sum is
// formed row by row inside the normalization instead of a pass over memory of its own.
//
// Refused when the Add's result has another consumer or is a graph output: the fused kernel
// does not write the sum, so keeping it would mean computing it twice (the shared-LayerNorm
// case). A manifest option to duplicate instead is not offered.
#include "registration.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

class AddLayerNormRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"add_layernorm", NumericsEffect::Exact, OptLevel::O2, 70,
            "residual Add -> ge.LayerNormalization => ge.LayerNormalization with Skip"};
  }
  std::vector<std::string> anchor_ops() const override { return {"LayerNormalization"}; }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    static const Pattern p =
        Pattern::op("ge.LayerNormalization", {Pattern::op("Add", {Pattern::any("a"), Pattern::any("b")}).as("add")}).as("ln");
    if (anchor.num_inputs() > 3 && anchor.input(3)) return false;  // already has a skip
    if (!match_pattern(p, anchor, m)) return false;
    const Value *a = m.value("a"), *b = m.value("b"), *sum = m.node("add")->output(0);
    // A residual: two tensors of the sum's shape (a broadcast bias is not a skip connection).
    if (a->shape != sum->shape || b->shape != sum->shape || a->dtype != DataType::Float32) return false;
    return interior_is_private(m, "ln") && fuse_flags_allow(m, "ln", ctx.ops(), *anchor.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    const Node* ln = m.node("ln");
    trf::replace_match(g, ctx, m, "ln", "LayerNormalization", {m.value("a"), ln->input(1), ln->input(2), m.value("b")},
                       ln->attrs);
  }
};

GE_FUSION_RULE(AddLayerNormRule);

}  // namespace
}  // namespace ge::fusion

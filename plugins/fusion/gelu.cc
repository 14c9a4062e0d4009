// plugins/fusion/gelu.cc — rule `gelu`: the erf form of GELU → ge.Gelu.
//
// GELU(x) = x · Φ(x) = 0.5 · x · (1 + erf(x / √2)) (Hendrycks & Gimpel 2016, eq. 1). Exporters
// write it in several shapes (ORT's GeluFusion lists the same ones):
//   A  ((x · (1 + erf(x/√2))) · 0.5                 PyTorch's nn.GELU export (bert_small)
//   B  x · ((1 + erf(x/√2)) · 0.5)                   0.5 applied to the erf term
//   C  (x · 0.5) · (1 + erf(x/√2))                   0.5 applied to x first
// and x/√2 as Div(x, 1.4142135) or Mul(x, 0.70710677). Every Mul/Add may have its operands in
// either order.
#include "registration.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

using P = Pattern;

P erf_term() {  // 1 + erf(x/√2)
  return P::op("Add", {P::op("Erf", {P::op("Div|Mul", {P::any("x"), P::constant("k")}).as("scale_in").commutative()}).as("erf"),
                       P::constant("one")})
      .as("plus")
      .commutative();
}

class GeluRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"gelu", NumericsEffect::Reassociates, OptLevel::O2, 80,
            "x*0.5*(1+Erf(x/sqrt2)) in its exported shapes -> ge.Gelu"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Mul"}; }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    static const std::vector<P> shapes = {
        P::op("Mul", {P::op("Mul", {P::any("x"), erf_term()}).as("inner").commutative(), P::constant("half")}).as("root").commutative(),
        P::op("Mul", {P::any("x"), P::op("Mul", {erf_term(), P::constant("half")}).as("inner").commutative()}).as("root").commutative(),
        P::op("Mul", {P::op("Mul", {P::any("x"), P::constant("half")}).as("inner").commutative(), erf_term()}).as("root").commutative(),
    };
    for (const P& p : shapes) {
      m = Match{};
      if (match_pattern(p, anchor, m) && legal(m, ctx, anchor)) return true;
    }
    return false;
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    trf::replace_match(g, ctx, m, "root", "Gelu", {m.value("x")}, {});
  }

 private:
  static bool legal(const Match& m, const PassContext& ctx, const Node& anchor) {
    const Node* s = m.node("scale_in");
    // Div must divide x by √2 (x is its first input); Mul multiplies by 1/√2 in either order.
    if (s->op_type() == "Div") {
      if (s->input(0) != m.value("x") || !trf::scalar_is(m.value("k"), 1.4142135623730951)) return false;
    } else if (!trf::scalar_is(m.value("k"), 0.7071067811865476)) {
      return false;
    }
    if (!trf::scalar_is(m.value("one"), 1.0) || !trf::scalar_is(m.value("half"), 0.5)) return false;
    const Value* x = m.value("x");
    if (x->dtype != DataType::Float32 || anchor.output(0)->shape != x->shape) return false;
    return interior_is_private(m, "root") && fuse_flags_allow(m, "root", ctx.ops(), *anchor.graph());
  }
};

GE_FUSION_RULE(GeluRule);

}  // namespace
}  // namespace ge::fusion

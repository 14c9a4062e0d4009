// plugins/fusion/layer_norm.cc — rule `layer_norm`: the decomposed LayerNorm → ge.LayerNormalization.
//
//   mean = ReduceMean(x, axes)         d = x - mean          var = ReduceMean(Pow(d, 2), axes)
//   y    = d / Sqrt(var + eps) * gamma + beta                 (Ba et al. 2016, eq. 4; PyTorch's export)
//
// Legal only when both ReduceMeans reduce the same trailing axes (keepdims), gamma and beta are
// constants of the normalized shape (leading 1s allowed), and y keeps x's shape — otherwise the
// pattern is some other normalization and is left alone. ORT's LayerNormFusion checks the same.
#include "registration.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

using P = Pattern;

/// `s` without leading 1s.
std::vector<int64_t> strip_ones(std::vector<int64_t> s) {
  size_t i = 0;
  while (i < s.size() && s[i] == 1) ++i;
  return {s.begin() + static_cast<std::ptrdiff_t>(i), s.end()};
}

class LayerNormRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"layer_norm", NumericsEffect::Reassociates, OptLevel::O2, 85,
            "ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add -> ge.LayerNormalization"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Add"}; }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    static const P sub = P::op("Sub", {P::any("x"), P::op("ReduceMean", {P::any("x")}).as("mean")}).as("sub");
    static const P var = P::op("ReduceMean", {P::op("Pow", {P::any("d"), P::constant("two")}).as("pow")}).as("var");
    static const P den = P::op("Sqrt", {P::op("Add", {var, P::constant("eps")}).as("add_eps").commutative()}).as("sqrt");
    static const P p =
        P::op("Add", {P::op("Mul", {P::op("Div", {sub, den}).as("div"), P::constant("gamma")}).as("mul").commutative(),
                      P::constant("beta")})
            .as("root")
            .commutative();
    if (!match_pattern(p, anchor, m)) return false;
    if (m.value("d") != m.node("sub")->output(0)) return false;  // Pow squares the same d
    if (!trf::scalar_is(m.value("two"), 2.0) || !trf::scalar_of(m.value("eps"))) return false;
    const Value* x = m.value("x");
    const int64_t rank = static_cast<int64_t>(x->shape.rank());
    if (x->dtype != DataType::Float32 || rank == 0 || anchor.output(0)->shape != x->shape) return false;
    // Both reductions: the same trailing axes [first, rank), keepdims.
    auto a1 = trf::reduce_axes(*m.node("mean")), a2 = trf::reduce_axes(*m.node("var"));
    if (!a1 || !a2 || a1->empty() || *a1 != *a2) return false;
    for (size_t i = 0; i < a1->size(); ++i)
      if ((*a1)[i] != rank - static_cast<int64_t>(a1->size() - i)) return false;
    if (m.node("mean")->attrs.get_int("keepdims", 1) == 0 || m.node("var")->attrs.get_int("keepdims", 1) == 0) return false;
    const int64_t axis = rank - static_cast<int64_t>(a1->size());
    std::vector<int64_t> normalized(x->shape.dims().begin() + axis, x->shape.dims().end());
    for (const char* c : {"gamma", "beta"}) {
      const Value* v = m.value(c);
      if (v->shape.rank() > x->shape.rank() || strip_ones(v->shape.dims()) != strip_ones(normalized)) return false;
    }
    return interior_is_private(m, "root") && fuse_flags_allow(m, "root", ctx.ops(), *anchor.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    const int64_t rank = static_cast<int64_t>(m.value("x")->shape.rank());
    Attributes at;
    at.set("axis", rank - static_cast<int64_t>(trf::reduce_axes(*m.node("mean"))->size()));
    at.set("epsilon", static_cast<float>(*trf::scalar_of(m.value("eps"))));
    trf::replace_match(g, ctx, m, "root", "LayerNormalization", {m.value("x"), m.value("gamma"), m.value("beta")}, at);
  }
};

GE_FUSION_RULE(LayerNormRule);

}  // namespace
}  // namespace ge::fusion

// plugins/fusion/attention.cc — rule `attention`: the core of scaled dot-product attention
//   MatMul(Q, Kt) → Div(·, c) | Mul(·, c) → [Add mask] → Softmax(last axis) → MatMul(·, V)
// → ge.Attention(Q, Kt, V, mask) {scale = 1/c or c} (Vaswani et al. 2017, eq. 1).
//
// Only the core is fused: the head split (Reshape/Transpose to [B, H, S, d]) and merge stay as
// they are, and K arrives already transposed ([B, H, d, S]) because PyTorch exports k.transpose
// (-2, -1) as a Transpose of K. ORT's AttentionFusion goes further (it absorbs the QKV
// projections) but needs a fixed head layout; this rule has no such assumption.
#include "registration.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

using P = Pattern;

class AttentionRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"attention", NumericsEffect::Reassociates, OptLevel::O2, 90,
            "MatMul(Q,Kt) -> scale -> [Add mask] -> Softmax -> MatMul(V) -> ge.Attention"};
  }
  std::vector<std::string> anchor_ops() const override { return {"MatMul"}; }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    static const P qk = P::op("MatMul", {P::any("q"), P::any("kt")}).as("qk");
    static const P scaled = P::op("Div|Mul", {qk, P::constant("c")}).as("scale");
    static const std::vector<P> shapes = {
        P::op("MatMul", {P::op("Softmax", {P::op("Add", {scaled, P::any("mask")}).as("add").commutative()}).as("softmax"),
                         P::any("v")})
            .as("root"),
        P::op("MatMul", {P::op("Softmax", {scaled}).as("softmax"), P::any("v")}).as("root"),
    };
    for (const P& p : shapes) {
      m = Match{};
      if (match_pattern(p, anchor, m) && legal(m, ctx, anchor)) return true;
    }
    return false;
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    const double c = *trf::scalar_of(m.value("c"));
    Attributes at;
    at.set("scale", static_cast<float>(m.node("scale")->op_type() == "Div" ? 1.0 / c : c));
    std::vector<Value*> in{m.value("q"), m.value("kt"), m.value("v")};
    if (m.has_node("add")) in.push_back(m.value("mask"));
    trf::replace_match(g, ctx, m, "root", "Attention", in, at);
  }

 private:
  static bool legal(const Match& m, const PassContext& ctx, const Node& root) {
    const Node* sc = m.node("scale");
    auto c = trf::scalar_of(m.value("c"));
    if (!c || *c == 0.0 || (sc->op_type() == "Div" && sc->input(0) != m.node("qk")->output(0))) return false;
    const Shape &q = m.value("q")->shape, &k = m.value("kt")->shape, &v = m.value("v")->shape;
    const size_t r = q.rank();
    if (r < 3 || k.rank() != r || v.rank() != r || m.value("q")->dtype != DataType::Float32) return false;
    for (size_t i = 0; i + 2 < r; ++i)  // equal batch dims: the kernel does not broadcast them
      if (q[i] != k[i] || q[i] != v[i]) return false;
    const Node* sm = m.node("softmax");
    const Shape& scores = sm->output(0)->shape;
    const int64_t axis = sm->attrs.get_int("axis", root.graph()->opset() >= 13 ? -1 : 1);
    if (axis != -1 && axis != static_cast<int64_t>(r) - 1) return false;
    if (m.has_node("add")) {
      const Value* mask = m.value("mask");
      if (mask->dtype != DataType::Float32 || mask->shape.rank() > r || m.node("add")->output(0)->shape != scores) return false;
      if (mask == m.node("scale")->output(0)) return false;
    }
    return interior_is_private(m, "root") && fuse_flags_allow(m, "root", ctx.ops(), *root.graph());
  }
};

GE_FUSION_RULE(AttentionRule);

}  // namespace
}  // namespace ge::fusion

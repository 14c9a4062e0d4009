// plugins/fusion/attention.cc — rule `attention`: the core of scaled dot-product attention
//   MatMul([Q | Q / c0 | Q · c0], Kt) → [· c | / c] → [Add mask | Where(cond, fill, ·)] →
//   Softmax(last axis) → MatMul(·, V)
// → ge.Attention(Q, Kt, V, mask | "", cond) {scale, fill, fill_if} (Vaswani et al. 2017, eq. 1).
//
// The forms are the exporters': BERT divides the scores and adds a mask; torch's
// nn.MultiheadAttention (ViT) divides Q before Q·Kᵀ; GPT-2 multiplies the scores and replaces the
// causally masked ones with Where(cond, finfo.min, ·); T5 adds a position bias to unscaled scores.
// A scale on both sides multiplies out (the rule reassociates: scale·(Q·Kt) for (Q/c0)·Kt).
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

/// Every form, most specific first: Q scaled or not × scores scaled or not × no mask, an additive
/// mask, or a Where with the fill on either side.
std::vector<P> attention_patterns() {
  std::vector<P> out;
  for (bool q_scaled : {true, false})
    for (bool scaled : {true, false})
      for (int mask : {1, 2, 3, 0}) {
        P q = q_scaled ? P::op("Div|Mul", {P::any("q"), P::constant("c0")}).as("qscale").commutative() : P::any("q");
        P logits = P::op("MatMul", {q, P::any("kt")}).as("qk");
        if (scaled) logits = P::op("Div|Mul", {logits, P::constant("c")}).as("scale").commutative();
        if (mask == 1) logits = P::op("Add", {logits, P::any("mask")}).as("add").commutative();
        if (mask == 2) logits = P::op("Where", {P::any("cond"), P::constant("fill"), logits}).as("where");
        if (mask == 3) logits = P::op("Where", {P::any("cond"), logits, P::constant("fill")}).as("where");
        out.push_back(P::op("MatMul", {P::op("Softmax", {logits}).as("softmax"), P::any("v")}).as("root"));
      }
  return out;
}

/// The factor a Div or Mul by the constant `c` applies to `x` (nullopt: not x ÷ c or x · c).
std::optional<double> factor(const Node& n, const Value* x, const Value* c) {
  auto k = trf::scalar_of(c);
  if (!k || *k == 0.0 || !std::isfinite(*k)) return std::nullopt;
  if (n.op_type() == "Mul") return *k;
  if (n.input(0) != x) return std::nullopt;  // c / x is not a scale
  return 1.0 / *k;
}

/// `m` (rank ≤ r) broadcasts to `to` (rank r) in the numpy sense.
bool broadcasts_to(const Shape& m, const Shape& to) {
  if (m.rank() > to.rank()) return false;
  for (size_t i = 0; i < m.rank(); ++i) {
    const int64_t d = m[m.rank() - 1 - i], s = to[to.rank() - 1 - i];
    if (d != 1 && d != s) return false;
  }
  return true;
}

class AttentionRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"attention", NumericsEffect::Reassociates, OptLevel::O2, 90,
            "MatMul([scaled] Q,Kt) -> [scale] -> [Add mask | Where fill] -> Softmax -> MatMul(V) -> ge.Attention"};
  }
  std::vector<std::string> anchor_ops() const override { return {"MatMul"}; }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    static const std::vector<P> shapes = attention_patterns();
    for (const P& p : shapes) {
      m = Match{};
      if (match_pattern(p, anchor, m) && legal(m, ctx, anchor)) return true;
    }
    return false;
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    Attributes at;
    at.set("scale", static_cast<float>(scale_of(m).value_or(1.0)));
    std::vector<Value*> in{m.value("q"), m.value("kt"), m.value("v")};
    if (m.has_node("add")) in.push_back(m.value("mask"));
    if (m.has_node("where")) {
      const Node* w = m.node("where");
      in.push_back(nullptr);  // no additive mask
      in.push_back(m.value("cond"));
      at.set("fill", static_cast<float>(*trf::scalar_of(m.value("fill"))));
      at.set("fill_if", int64_t{w->input(1) == m.value("fill") ? 1 : 0});
    }
    trf::replace_match(g, ctx, m, "root", "Attention", in, at);
  }

 private:
  /// The product of the Q and score scales; nullopt when one is not a usable Div/Mul.
  static std::optional<double> scale_of(const Match& m) {
    double s = 1.0;
    if (m.has_node("qscale")) {
      auto f = factor(*m.node("qscale"), m.value("q"), m.value("c0"));
      if (!f) return std::nullopt;
      s *= *f;
    }
    if (m.has_node("scale")) {
      auto f = factor(*m.node("scale"), m.node("qk")->output(0), m.value("c"));
      if (!f) return std::nullopt;
      s *= *f;
    }
    return s;
  }

  static bool legal(const Match& m, const PassContext& ctx, const Node& root) {
    auto s = scale_of(m);
    if (!s || *s == 0.0 || !std::isfinite(static_cast<float>(*s))) return false;
    const Shape &q = m.value("q")->shape, &k = m.value("kt")->shape, &v = m.value("v")->shape;
    const size_t r = q.rank();
    if (r < 3 || k.rank() != r || v.rank() != r || m.value("q")->dtype != DataType::Float32) return false;
    for (size_t i = 0; i + 2 < r; ++i)  // equal batch dims: the kernel does not broadcast them
      if (q[i] != k[i] || q[i] != v[i]) return false;
    if (m.has_node("qscale") && m.node("qscale")->output(0)->shape != q) return false;  // c0 must not broadcast Q
    const Node* sm = m.node("softmax");
    const Shape& scores = sm->output(0)->shape;
    if (m.node("qk")->output(0)->shape != scores) return false;
    const int64_t axis = sm->attrs.get_int("axis", root.graph()->opset() >= 13 ? -1 : 1);
    if (axis != -1 && axis != static_cast<int64_t>(r) - 1) return false;
    if (m.has_node("add")) {
      const Value* mask = m.value("mask");
      if (mask->dtype != DataType::Float32 || !broadcasts_to(mask->shape, scores)) return false;
      if (m.has_node("scale") ? mask == m.node("scale")->output(0) : mask == m.node("qk")->output(0)) return false;
    }
    if (m.has_node("where")) {
      const Value *cond = m.value("cond"), *fill = m.value("fill");
      if (cond->dtype != DataType::Bool || !broadcasts_to(cond->shape, scores)) return false;
      if (fill->dtype != DataType::Float32 || fill->numel() != 1) return false;
    }
    return interior_is_private(m, "root") && fuse_flags_allow(m, "root", ctx.ops(), *root.graph());
  }
};

GE_FUSION_RULE(AttentionRule);

}  // namespace
}  // namespace ge::fusion

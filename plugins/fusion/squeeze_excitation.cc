// plugins/fusion/squeeze_excitation.cc — rule `squeeze_excitation`: the squeeze and excitation of
// a squeeze-and-excitation block (Hu et al. 2018, eqs. 2–3; MobileNetV3, EfficientNet)
//   Conv|ge.FusedConv{gate}(ge.FusedConv{act}|Conv(GlobalAveragePool(X), W1, B1), W2, B2)
// → ge.SqueezeExcitation(X, W1, B1, W2, B2) {activation = act, gate}, S [N, C2, 1, 1].
//
// Runs after conv_bias_act (priority 40), which gives the two 1×1 convolutions their activations
// (MobileNetV3's ReLU; EfficientNet's SiLU and Sigmoid), and before elementwise_chain (5), so the
// final scaling X · gate(S) — MobileNetV3's HardSigmoid, which no convolution post-op computes —
// stays one elementwise kernel after it: the block is two kernels instead of four. The
// convolutions must be plain 1×1 maps on the pooled 1×1 map (group 1, no padding, unit stride, no
// Z) with constant weights.
#include "conv_fusion_util.h"
#include "registration.h"
#include "transformer_util.h"

namespace ge::fusion {
namespace {

using P = Pattern;

/// A float32 1×1 convolution over a 1×1 map that is a fully connected layer: group 1, unit
/// strides and dilations, no padding, constant W [M, C, 1, 1] and B [M] (or none), no Z.
bool is_fc_conv(const Node& n) {
  const bool conv = (n.domain().empty() && n.op_type() == "Conv") || (n.domain() == "ge" && n.op_type() == "FusedConv");
  if (!conv || n.input(3)) return false;
  const Value *x = n.input(0), *w = n.input(1), *b = n.input(2);
  if (!x || !w || x->shape.rank() != 4 || w->shape.rank() != 4 || x->shape[2] != 1 || x->shape[3] != 1) return false;
  if (!f32_constant(w) || w->shape[2] != 1 || w->shape[3] != 1 || w->shape[1] != x->shape[1]) return false;
  if (b && !f32_constant(b, w->shape[0])) return false;
  if (n.attrs.get_int("group", 1) != 1) return false;
  auto all = [&](const char* name, int64_t v) {
    for (int64_t x : n.attrs.get_ints(name, {}))
      if (x != v) return false;
    return true;
  };
  return all("strides", 1) && all("dilations", 1) && all("pads", 0);
}

class SqueezeExcitationRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"squeeze_excitation", NumericsEffect::Reassociates, OptLevel::O2, 10,
            "GlobalAveragePool -> 1x1 Conv(act) -> 1x1 Conv(gate) -> ge.SqueezeExcitation"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Conv", "FusedConv"}; }

  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    static const P p =
        P::op("Conv|ge.FusedConv",
              {P::op("Conv|ge.FusedConv", {P::op("GlobalAveragePool", {P::any("x")}).as("pool")}).as("fc1")})
            .as("root");
    m = Match{};
    if (!match_pattern(p, anchor, m)) return false;
    const Node *fc1 = m.node("fc1"), *fc2 = m.node("root");
    const Value* x = m.value("x");
    if (!x || x->dtype != DataType::Float32 || x->shape.rank() != 4) return false;
    if (!is_fc_conv(*fc1) || !is_fc_conv(*fc2)) return false;
    return interior_is_private(m, "root") && fuse_flags_allow(m, "root", ctx.ops(), *anchor.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    const Node *fc1 = m.node("fc1"), *fc2 = m.node("root");
    Attributes at;
    auto carry = [&](const Node& n, const char* to, const char* to_params) {
      const std::string act = n.attrs.get_string("activation", "");
      if (act.empty()) return;
      at.set(to, act);
      if (n.attrs.has("activation_params")) at.set(to_params, n.attrs.get_floats("activation_params"));
    };
    carry(*fc1, "activation", "activation_params");
    carry(*fc2, "gate", "gate_params");
    trf::replace_match(g, ctx, m, "root", "SqueezeExcitation",
                       {m.value("x"), fc1->input(1), fc1->input(2), fc2->input(1), fc2->input(2)}, std::move(at));
  }
};

GE_FUSION_RULE(SqueezeExcitationRule);

}  // namespace
}  // namespace ge::fusion

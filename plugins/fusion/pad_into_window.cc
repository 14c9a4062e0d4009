// plugins/fusion/pad_into_window.cc — pad_into_window: fold a zero constant Pad of the spatial axes
// into the implicit padding of the Conv or AveragePool that reads it.
//
// Conv pads its input with zeros (onnx/docs/Operators.md#Conv, `pads`), so
//   Conv(Pad(x, p, 0), pads = q) = Conv(x, pads = q + p)
// when p pads only the spatial axes and by non-negative amounts (a negative pad crops). AveragePool
// with count_include_pad = 1 divides by the whole window, padding included, which is what it does
// over explicit zeros; with count_include_pad = 0 and no padding of its own every window lies
// inside the explicitly padded tensor, so the divisor is the whole window there too:
//   AveragePool(Pad(x, p, 0), pads = q, count_include_pad = c) = AveragePool(x, pads = q + p, count_include_pad = 1)
// when c = 1 or q = 0, with ceil_mode 0 (a ceil-mode window may run past the padded tensor, where
// the divisor rules of the two forms differ) and unit dilations. Exporters write torch's
// avg_pool2d(..., padding=1, count_include_pad=True) this way (inception_v3's 9 branch pools) and
// "same" paddings TensorFlow converters cannot express as symmetric pads. The same rewrite is
// onnxoptimizer's fuse_pad_into_conv / fuse_pad_into_pool and OpenVINO's PadFusionConvolution /
// PadFusionAvgPool (ONNX Runtime 1.30 runs inception_v3 with no Pad node left). MaxPool pads
// with −∞, not 0: not folded.
// Numerics: the same terms are summed, plus or minus zeros; the AveragePool result is bitwise the
// same, but the convolution kernel oneDNN picks for the new padding may sum in another order, so
// the rule declares Reassociates (numerics = "strict" keeps the Pad).
#include <string>
#include <vector>

#include "conv_fusion_util.h"
#include "registration.h"

namespace ge::fusion {
namespace {

using P = Pattern;

/// Pad's `pads` (opset ≥ 11: input 1, a constant; before: the attribute), or false.
bool read_pads(const Node& pad, std::vector<int64_t>& pads) {
  if (pad.num_inputs() >= 2 && pad.input(1)) {
    const Value* p = pad.input(1);
    if (!p->is_constant() || !p->data || p->dtype != DataType::Int64) return false;
    const int64_t* d = p->data->data_as<int64_t>();
    pads.assign(d, d + p->numel());
    return true;
  }
  if (!pad.attrs.has("pads")) return false;
  pads = pad.attrs.get_ints("pads");
  return true;
}

/// The padding value is zero: absent, the attribute `value` (before opset 11) or a constant
/// scalar input 2 (float32, the only dtype the windows here read).
bool pads_with_zero(const Node& pad) {
  if (pad.num_inputs() >= 3 && pad.input(2)) {
    float v = 1.f;
    return const_scalar(pad.input(2), v) && v == 0.f;
  }
  return pad.attrs.get_float("value", 0.f) == 0.f;
}

class PadIntoWindowRule : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"pad_into_window", NumericsEffect::Reassociates, OptLevel::O2, 95,
            "Pad (zeros, spatial axes) + Conv / AveragePool → the window op with the padding as its pads"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Conv", "FusedConv", "AveragePool"}; }

  bool match(Node& root, const PassContext& ctx, Match& m) const override {
    static const P pat = P::op("Conv|ge.FusedConv|AveragePool", {P::op("Pad").as("pad")}).as("root");
    if (!match_pattern(pat, root, m)) return false;
    const Node* pad = m.node("pad");
    const Value* x = pad->input(0);
    if (!x || x->dtype != DataType::Float32 || pad->attrs.get_string("mode", "constant") != "constant") return false;
    if (pad->num_inputs() >= 4 && pad->input(3)) return false;  // opset 18 `axes`: not read here
    std::vector<int64_t> pads;
    const int64_t r = x->shape.rank();
    if (r < 3 || !read_pads(*pad, pads) || static_cast<int64_t>(pads.size()) != 2 * r || !pads_with_zero(*pad))
      return false;
    for (int64_t i = 0; i < r; ++i) {
      if (pads[i] < 0 || pads[r + i] < 0) return false;               // a negative pad crops
      if (i < 2 && (pads[i] != 0 || pads[r + i] != 0)) return false;  // N and C untouched
    }
    if (root.attrs.get_string("auto_pad", "NOTSET") != "NOTSET") return false;
    const std::vector<int64_t> own = root.attrs.get_ints("pads");
    if (!own.empty() && static_cast<int64_t>(own.size()) != 2 * (r - 2)) return false;
    if (root.op_type() == "AveragePool") {
      if (root.attrs.get_int("ceil_mode", 0) != 0) return false;
      for (int64_t d : root.attrs.get_ints("dilations"))
        if (d != 1) return false;
      bool own_zero = true;
      for (int64_t p : own) own_zero = own_zero && p == 0;
      if (root.attrs.get_int("count_include_pad", 0) == 0 && !own_zero) return false;
    }
    return interior_is_private(m, "root") && fuse_flags_allow(m, "root", ctx.ops(), *root.graph());
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    Node* root = m.node("root");
    Node* pad = m.node("pad");
    std::vector<int64_t> pads;
    read_pads(*pad, pads);
    const int64_t r = static_cast<int64_t>(pads.size()) / 2, s = r - 2;
    std::vector<int64_t> merged = root->attrs.get_ints("pads");
    merged.resize(2 * s, 0);
    for (int64_t i = 0; i < s; ++i) {
      merged[i] += pads[2 + i];
      merged[s + i] += pads[r + 2 + i];
    }
    root->attrs.set("pads", merged);
    if (root->op_type() == "AveragePool") root->attrs.set("count_include_pad", int64_t{1});
    std::vector<Value*> dead(pad->inputs().begin() + 1, pad->inputs().end());
    dead.push_back(pad->output(0));
    g.set_input(root, 0, pad->input(0));
    g.remove_node(pad);
    for (Value* v : dead) remove_if_dead(g, v);
    ctx.infer_shapes(*root);
  }
};

}  // namespace

GE_FUSION_RULE(PadIntoWindowRule);

}  // namespace ge::fusion

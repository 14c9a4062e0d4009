// plugins/fusion/split_concat.cc — the `split_concat` rule (memory-level fusion):
//  - Concat(Split(x) pieces, in order, all of them, same axis) → x: the two copies cancel;
//  - Concat(.., Concat(a, b), ..) on one axis → Concat(.., a, b, ..): one copy instead of two.
// Both are data movement only, so the rewrite is exact.
//
// Legality: the Concat output of the first form must not be a graph output (the output would
// be renamed to x); the inner Concat of the second form must be read only by the outer one and
// not be a graph output. Every node's fuse_flag must not be `never`.
#include <algorithm>

#include "ge/sdk/pass.h"
#include "registration.h"

namespace ge::fusion {
namespace {

bool fusable(const Node& n, const OpRegistry& reg) {
  const OpDef* d = reg.find(n.domain(), n.op_type(), n.graph()->opset(n.domain()));
  return d && d->fuse_flag != FuseFlag::Never;
}

/// Axis normalized to [0, rank) (default 0, Split's), or -1 when required and missing, or out
/// of range.
int64_t norm_axis(const Node& n, bool required) {
  const Value* x = n.input(0);
  if (!x || (required && !n.attrs.has("axis"))) return -1;
  const auto r = static_cast<int64_t>(x->shape.rank());
  int64_t a = n.attrs.get_int("axis", 0);
  if (a < 0) a += r;
  return a >= 0 && a < r ? a : -1;
}

bool is_concat(const Node& n) { return n.domain().empty() && n.op_type() == "Concat"; }

class SplitConcatRule final : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"split_concat", NumericsEffect::Exact, OptLevel::O2, 20,
            "Concat of all Split pieces in order -> Split input; nested Concat on one axis -> one Concat"};
  }
  std::vector<std::string> anchor_ops() const override { return {"Concat"}; }

  bool match(Node& concat, const PassContext& ctx, Match& m) const override {
    if (!is_concat(concat) || !fusable(concat, ctx.ops()) || concat.num_inputs() == 0) return false;
    const int64_t axis = norm_axis(concat, true);
    if (axis < 0) return false;
    m.nodes["concat"] = &concat;
    // Form 1: the inputs are exactly the outputs of one Split, in order.
    const Node* split = concat.input(0) ? concat.input(0)->producer() : nullptr;
    if (split && split->domain().empty() && split->op_type() == "Split" && fusable(*split, ctx.ops()) &&
        split->num_outputs() == concat.num_inputs() && norm_axis(*split, false) == axis &&
        !concat.output(0)->is_graph_output() && split->input(0)->dtype == concat.output(0)->dtype) {
      bool same = true;
      for (size_t i = 0; i < concat.num_inputs() && same; ++i) same = concat.input(i) == split->output(i);
      if (same) {
        m.nodes["split"] = const_cast<Node*>(split);
        return true;
      }
    }
    // Form 2: an input is a Concat on the same axis whose result only the outer Concat reads.
    for (Value* v : concat.inputs()) {
      Node* inner = v ? v->producer() : nullptr;
      if (!inner || !is_concat(*inner) || !fusable(*inner, ctx.ops()) || norm_axis(*inner, true) != axis) continue;
      if (v->is_graph_output() || v->uses().size() != 1) continue;
      m.nodes["inner"] = inner;
      return interior_is_private(m, "concat");
    }
    return false;
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    Node* concat = m.node("concat");
    if (m.has_node("split")) {
      Node* split = m.node("split");
      Value* out = concat->output(0);
      g.replace_all_uses(out, split->input(0));
      g.remove_node(concat);
      g.remove_value(out);
      // The pieces may have other readers; otherwise the Split goes too.
      bool used = false;
      for (Value* p : split->outputs()) used = used || !p->uses().empty() || p->is_graph_output();
      if (!used) {
        std::vector<Value*> pieces = split->outputs();
        g.remove_node(split);
        for (Value* p : pieces) g.remove_value(p);
      }
      return;
    }
    Node* inner = m.node("inner");
    Value* mid = inner->output(0);
    std::vector<Value*> inputs;
    for (Value* v : concat->inputs()) {
      if (v == mid) inputs.insert(inputs.end(), inner->inputs().begin(), inner->inputs().end());
      else inputs.push_back(v);
    }
    Value* out = concat->output(0);
    const std::string name = concat->name();
    Attributes attrs = concat->attrs;
    g.remove_node(concat);
    g.remove_node(inner);
    g.remove_value(mid);
    Node* merged = g.add_node("Concat", name, inputs, {out}, std::move(attrs));
    ctx.infer_shapes(*merged);
  }
};

}  // namespace

GE_FUSION_RULE(SplitConcatRule);

}  // namespace ge::fusion

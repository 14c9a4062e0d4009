// plugins/fusion/elementwise_chain.cc — the `elementwise_chain` rule: a maximal tree of float32
// elementwise/broadcast ops → one ge.FusedElementwise node that the backend evaluates in one
// pass over memory (TVM's FuseOps elementwise group, without injective ops).
//
// Pattern: anchored at a tree's root, i.e. a candidate op whose output cannot be absorbed into
// its consumer; the tree grows through producers that are candidates. Legality: every interior
// value is read only by its consumer in the tree (no other node, not a graph output) and the
// fuse_flags of both ends allow the edge. Rewrite: an SSA program (ops/elementwise.toml) in
// post order. Lowest priority of the generic rules so that conv/matmul/layernorm/gelu rules take
// their patterns first.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "ge/sdk/error.h"
#include "ge/sdk/pass.h"
#include "registration.h"

namespace ge::fusion {
namespace {

// A fused group has at most 64 nodes: it bounds the work of one match and the kernels' scratch
// (one block buffer per instruction).
constexpr size_t kMaxOps = 64;

/// The operand budget of ge.FusedElementwise's kernels (registry contract max_operands: data
/// inputs + instructions); a node with k data inputs adds at most k inputs and max(1, k-1)
/// instructions, so 2k per node stays under it.
size_t operand_budget(const OpRegistry& reg) {
  const OpDef* d = reg.find("ge", "FusedElementwise", 1);
  if (!d || d->max_operands <= 0) throw Error("elementwise_chain: ge.FusedElementwise has no max_operands contract in the registry");
  return static_cast<size_t>(d->max_operands);
}

/// Variadic ops (Sum, Max, Min, by their schema), written as a left-to-right chain of binary
/// instructions (as their kernels fold).
bool variadic(const OpDef& d) { return !d.inputs.empty() && d.inputs.back().variadic; }

/// The float attributes an instruction carries in `imms`, in order, with the schema defaults.
std::vector<float> attribute_imms(const Node& n) {
  const std::string& op = n.op_type();
  auto f = [&](const char* name, float dflt) { return n.attrs.get_float(name, dflt); };
  if (op == "LeakyRelu") return {f("alpha", 0.01f)};
  if (op == "Elu" || op == "Celu" || op == "ThresholdedRelu") return {f("alpha", 1.f)};
  if (op == "Selu") return {f("alpha", 1.67326319217681884765625f), f("gamma", 1.05070102214813232421875f)};
  if (op == "HardSigmoid") return {f("alpha", 0.2f), f("beta", 0.5f)};
  return {};
}

/// Clip's bounds as immediates: Clip-6 attributes, Clip-11+ constant scalar inputs (an omitted
/// one is no bound). False when a bound is only known at run time.
bool clip_bounds(const Node& n, float& lo, float& hi) {
  const float inf = std::numeric_limits<float>::infinity();
  lo = -inf;
  hi = inf;
  if (n.graph()->opset("") < 11) {
    lo = n.attrs.get_float("min", -inf);
    hi = n.attrs.get_float("max", inf);
    return true;
  }
  for (size_t i = 1; i < 3; ++i) {
    const Value* v = n.input(i);
    if (!v) continue;
    if (!v->data || v->data->dtype() != DataType::Float32 || v->data->numel() != 1) return false;
    (i == 1 ? lo : hi) = v->data->data_as<float>()[0];
  }
  return true;
}

/// An op the fused kernel computes: ONNX domain, an instruction of ge.FusedElementwise by the
/// registry (OpDef::elementwise_instruction) with pattern elementwise or broadcast, float32
/// throughout, one output.
bool candidate(const Node& n, const OpRegistry& reg) {
  if (!n.domain().empty() || n.num_outputs() != 1) return false;
  const OpDef* d = reg.find("", n.op_type(), n.graph()->opset(""));
  if (!d || !d->elementwise_instruction) return false;
  if (d->pattern != OpPattern::Elementwise && d->pattern != OpPattern::Broadcast) return false;
  if (d->fuse_flag == FuseFlag::Never) return false;
  if (n.output(0)->dtype != DataType::Float32) return false;
  const size_t data_inputs = n.op_type() == "Clip" ? 1 : n.num_inputs();
  if (data_inputs == 0 || (variadic(*d) && n.num_inputs() < 2)) return false;
  for (size_t i = 0; i < data_inputs; ++i)
    if (!n.input(i) || n.input(i)->dtype != DataType::Float32) return false;
  float lo, hi;
  return n.op_type() != "Clip" || clip_bounds(n, lo, hi);
}

FuseFlag flag_of(const Node& n, const OpRegistry& reg) {
  const OpDef* d = reg.find(n.domain(), n.op_type(), n.graph()->opset(n.domain()));
  return d ? d->fuse_flag : FuseFlag::Never;
}

/// The producer of `v` may be absorbed into `consumer`: both candidates, every use of v is by
/// `consumer` (x*x counts once), v is not a graph output, and the fuse_flags allow the edge.
bool absorbable(const Value& v, const Node& consumer, const OpRegistry& reg) {
  const Node* p = v.producer();
  if (!p || v.is_graph_output() || v.uses().empty()) return false;
  for (const Use& u : v.uses())
    if (u.node != &consumer) return false;
  if (!candidate(*p, reg) || !candidate(consumer, reg)) return false;
  const FuseFlag fp = flag_of(*p, reg), fc = flag_of(consumer, reg);
  return fp != FuseFlag::NoFuseOutput && fc != FuseFlag::NoFuseInput;
}

class ElementwiseChainRule final : public FusionRule {
 public:
  FusionRuleInfo info() const override {
    return {"elementwise_chain", NumericsEffect::Exact, OptLevel::O2, 5,
            "maximal trees of float32 elementwise/broadcast ops -> one ge.FusedElementwise"};
  }
  // Every op type: which ones the fused kernel computes is registry data (candidate()).
  std::vector<std::string> anchor_ops() const override { return {}; }

  // Match: the tree's nodes are captured as "root" and "n1", "n2", … (post order is rebuilt by
  // the rewrite from the graph edges, so the Match only needs membership).
  bool match(Node& anchor, const PassContext& ctx, Match& m) const override {
    const OpRegistry& reg = ctx.ops();
    if (!candidate(anchor, reg)) return false;
    // Not a root when the single consumer absorbs it: the tree is matched at its root.
    const Value& out = *anchor.output(0);
    if (!out.uses().empty() && absorbable(out, *out.uses().front().node, reg)) return false;
    auto cost = [](const Node& n) { return 2 * (n.op_type() == "Clip" ? 1 : n.num_inputs()); };
    std::vector<Node*> group = {&anchor};
    const size_t max_budget = operand_budget(reg);
    size_t budget = cost(anchor);
    for (size_t k = 0; k < group.size() && group.size() < kMaxOps; ++k) {
      Node* n = group[k];
      const size_t data_inputs = n->op_type() == "Clip" ? 1 : n->num_inputs();
      for (size_t i = 0; i < data_inputs && group.size() < kMaxOps; ++i) {
        Value* v = n->input(i);
        if (!absorbable(*v, *n, reg) || budget + cost(*v->producer()) > max_budget) continue;
        if (std::find(group.begin(), group.end(), v->producer()) == group.end()) {
          group.push_back(v->producer());
          budget += cost(*v->producer());
        }
      }
    }
    if (group.size() < 2) return false;
    m.nodes["root"] = &anchor;
    for (size_t k = 1; k < group.size(); ++k) m.nodes["n" + std::to_string(k)] = group[k];
    return interior_is_private(m, "root");
  }

  void rewrite(Graph& g, PassContext& ctx, const Match& m) const override {
    std::set<const Node*> members;
    for (auto& [name, n] : m.nodes) members.insert(n);
    Node* root = m.node("root");
    // Post-order walk from the root assigns operand indices: inputs first (in the order first
    // read), then results. Results get indices after all inputs, so collect inputs in a first walk.
    std::vector<Value*> inputs;
    std::vector<const Node*> order;
    std::function<void(const Node*)> walk = [&](const Node* n) {
      const size_t data_inputs = n->op_type() == "Clip" ? 1 : n->num_inputs();
      for (size_t i = 0; i < data_inputs; ++i) {
        Value* v = n->input(i);
        if (v->producer() && members.count(v->producer())) {
          if (std::find(order.begin(), order.end(), v->producer()) == order.end()) walk(v->producer());
        } else if (std::find(inputs.begin(), inputs.end(), v) == inputs.end()) {
          inputs.push_back(v);
        }
      }
      order.push_back(n);
    };
    walk(root);
    const auto nin = static_cast<int64_t>(inputs.size());
    std::map<const Value*, int64_t> index;
    for (int64_t i = 0; i < nin; ++i) index[inputs[i]] = i;
    std::vector<std::string> ops;
    std::vector<int64_t> args;
    std::vector<float> imms;
    auto emit = [&](const std::string& op, std::vector<int64_t> a) {
      ops.push_back(op);
      args.insert(args.end(), a.begin(), a.end());
      return nin + static_cast<int64_t>(ops.size()) - 1;
    };
    for (const Node* n : order) {
      const std::string& op = n->op_type();
      int64_t r;
      const OpDef* def = ctx.ops().find("", op, g.opset(""));
      if (def && variadic(*def)) {  // left to right, as the Sum/Max/Min kernels fold
        const std::string step = op == "Sum" ? "Add" : op;
        r = index.at(n->input(0));
        for (size_t i = 1; i < n->num_inputs(); ++i) r = emit(step, {r, index.at(n->input(i))});
      } else if (op == "Clip") {
        float lo, hi;
        clip_bounds(*n, lo, hi);
        r = emit(op, {index.at(n->input(0))});
        imms.push_back(lo);
        imms.push_back(hi);
      } else {
        std::vector<int64_t> a;
        for (Value* v : n->inputs()) a.push_back(index.at(v));
        r = emit(op, a);
        for (float v : attribute_imms(*n)) imms.push_back(v);
      }
      index[n->output(0)] = r;
    }
    Value* out = root->output(0);
    const std::string name = root->name();
    // Interior nodes and their private outputs go; the root's output keeps its name and uses.
    std::vector<Value*> dead;
    for (const Node* n : order)
      if (n != root) dead.push_back(n->output(0));
    for (const Node* n : order) g.remove_node(const_cast<Node*>(n));
    for (Value* v : dead) g.remove_value(v);
    Attributes attrs;
    attrs.set("ops", ops);
    attrs.set("args", args);
    if (!imms.empty()) attrs.set("imms", imms);  // an empty list would read back as ints
    g.opsets.try_emplace("ge", 1);  // shape inference looks the op up at the graph's "ge" opset
    Node* fused = g.add_node("FusedElementwise", name, inputs, {out}, std::move(attrs), "ge");
    ctx.infer_shapes(*fused);
    // The pass manager restores topological order once the rule has run (apply_rule).
  }
};

}  // namespace

GE_FUSION_RULE(ElementwiseChainRule);

}  // namespace ge::fusion

// merge_transposes: Transpose(Transpose(x, p1), p2) is Transpose(x, c) with c[i] = p1[p2[i]]
// (output axis i of the second reads axis p2[i] of the first, which reads axis p1[p2[i]] of x).
//
// The second Transpose is rewritten in place to read x, so its output keeps its name (graph
// outputs stay); the first disappears once nothing else reads it. When c is the identity the
// second Transpose is bypassed, or, if its output is a graph output, becomes an Identity.
// Topological order makes chains of any length collapse in one run.
#include <numeric>
#include <string>
#include <vector>

#include "registration.h"
#include "simplify_util.h"

namespace ge::fusion {
namespace {

/// The perm of a Transpose: its attribute, or the reversed axes when absent (ONNX default).
std::vector<int64_t> perm_of(const Node& t) {
  if (t.attrs.has("perm")) return t.attrs.get_ints("perm");
  size_t r = t.input(0) ? t.input(0)->shape.rank() : 0;
  std::vector<int64_t> p(r);
  std::iota(p.rbegin(), p.rend(), int64_t{0});
  return p;
}

bool valid_perm(const std::vector<int64_t>& p) {
  std::vector<bool> seen(p.size(), false);
  for (int64_t a : p) {
    if (a < 0 || a >= static_cast<int64_t>(p.size()) || seen[static_cast<size_t>(a)]) return false;
    seen[static_cast<size_t>(a)] = true;
  }
  return true;
}

bool is_transpose(const Node* n) { return n && n->op_type() == "Transpose" && n->domain().empty(); }

class MergeTransposes : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "merge_transposes";
    i.stage = Stage::Simplify;
    i.min_level = OptLevel::O1;
    i.numerics = NumericsEffect::Exact;
    i.summary = "Transpose of a Transpose becomes one Transpose with the composed perm (none when identity)";
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    int64_t merged = 0;
    for (Node* t2 : ordered_nodes(g)) {
      if (!is_transpose(t2)) continue;
      Value* y1 = t2->input(0);
      Node* t1 = y1 ? y1->producer() : nullptr;
      if (!is_transpose(t1) || !t1->input(0)) continue;
      std::vector<int64_t> p1 = perm_of(*t1), p2 = perm_of(*t2);
      if (!valid_perm(p1) || !valid_perm(p2) || p1.size() != p2.size()) continue;  // the verifier reports it
      Value* x = t1->input(0);
      std::vector<int64_t> c(p2.size());
      bool identity = true;
      for (size_t i = 0; i < p2.size(); ++i) {
        c[i] = p1[static_cast<size_t>(p2[i])];
        identity &= c[i] == static_cast<int64_t>(i);
      }
      Value* y2 = t2->output(0);
      if (identity && can_bypass(y2, x)) {
        bypass(g, t2, y2, x);
      } else if (identity) {
        // y2 is a graph output: keep a node that writes it, the cheapest one.
        std::string name = t2->name();
        g.remove_node(t2);
        Node* id = g.add_node("Identity", name, {x}, {y2});
        ctx.infer_shapes(*id);
      } else {
        g.set_input(t2, 0, x);
        t2->attrs.set("perm", c);
        ctx.infer_shapes(*t2);
      }
      if (is_orphan_node(t1)) erase_node(g, t1);
      ++merged;
    }
    if (merged) restore_topological_order(g);  // replacement nodes were appended at the end
    if (merged) ctx.count("simplify.merge_transposes", merged);
    return merged > 0;
  }

 private:
  static bool is_orphan_node(const Node* n) {
    for (const Value* o : n->outputs())
      if (o && (!o->uses().empty() || o->is_graph_output())) return false;
    return true;
  }
};

}  // namespace

GE_FUSION_PASS(MergeTransposes, 30);

}  // namespace ge::fusion

// merge_reshapes: a chain of Reshape / Flatten / Squeeze / Unsqueeze only relabels the axes of one
// row-major buffer, so the last one alone, as Reshape(x, its static output shape), computes the
// same tensor from the chain's first input.
//
// The last node of the chain keeps writing its output value (a graph output keeps its name): a
// Reshape gets its new data input and shape constant in place, the other ops are replaced by a
// Reshape of the same name. Earlier links disappear once nothing else reads them. Shapes with a 0
// extent are left alone: Reshape reads 0 as "copy this input dim" unless allowzero is set.
#include <string>
#include <vector>

#include "registration.h"
#include "simplify_util.h"

namespace ge::fusion {
namespace {

bool is_reshape_like(const Node* n) {
  if (!n || !n->domain().empty()) return false;
  const std::string& op = n->op_type();
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze";
}

bool has_readers(const Node* n) {
  for (const Value* o : n->outputs())
    if (o && (!o->uses().empty() || o->is_graph_output())) return true;
  return false;
}

/// The int64 shape constant for `dims`, reusing the node's own shape input when it already says so.
Value* shape_constant(Graph& g, const Node& n, const std::vector<int64_t>& dims) {
  if (n.op_type() == "Reshape" && n.input(1) && n.input(1)->is_constant() &&
      n.input(1)->dtype == DataType::Int64 && n.input(1)->data->to_int64_vector() == dims)
    return n.input(1);
  return add_shape_constant(g, n.output(0)->name(), dims);
}

class MergeReshapes : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "merge_reshapes";
    i.stage = Stage::Simplify;
    i.min_level = OptLevel::O1;
    i.numerics = NumericsEffect::Exact;
    i.summary = "Chains of Reshape/Flatten/Squeeze/Unsqueeze become one Reshape with a constant shape";
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    if (g.opset("") < 5) return false;  // Reshape takes its shape as an input from opset 5 on
    int64_t merged = 0;
    for (Node* n : ordered_nodes(g)) {
      if (!is_reshape_like(n) || n->num_outputs() != 1) continue;
      Value* mid = n->input(0);
      Node* first = mid ? mid->producer() : nullptr;
      if (!is_reshape_like(first) || !first->input(0)) continue;
      Value* x = first->input(0);
      Value* y = n->output(0);
      const std::vector<int64_t>& dims = y->shape.dims();
      bool zero = false;
      for (int64_t d : dims) zero |= d == 0;
      if (zero || y->dtype != x->dtype) continue;

      Value* shape = shape_constant(g, *n, dims);
      if (n->op_type() == "Reshape") {
        Value* old_shape = n->input(1);
        g.set_input(n, 0, x);
        g.set_input(n, 1, shape);
        if (is_orphan(old_shape)) g.remove_value(old_shape);
        ctx.infer_shapes(*n);
      } else {
        std::string name = n->name();
        std::vector<Value*> ins = n->inputs();
        g.remove_node(n);
        for (size_t i = 1; i < ins.size(); ++i)  // Squeeze/Unsqueeze axes (opset 13)
          if (is_orphan(ins[i])) g.remove_value(ins[i]);
        Node* r = g.add_node("Reshape", name, {x, shape}, {y});
        ctx.infer_shapes(*r);
      }
      if (!has_readers(first)) erase_node(g, first);
      ++merged;
    }
    if (merged) restore_topological_order(g);  // replacement nodes were appended at the end
    if (merged) ctx.count("simplify.merge_reshapes", merged);
    return merged > 0;
  }
};

}  // namespace

GE_FUSION_PASS(MergeReshapes, 31);

}  // namespace ge::fusion

// transpose_to_reshape: a Transpose that keeps the relative order of the axes longer than 1 moves
// no element — in row-major order element i of the output is element i of the input — so it is
// Reshape(x, its static output shape), which the backends run as a view of the input's bytes.
//
// PyTorch's nn.MultiheadAttention exports its batch-first ↔ sequence-first swaps this way at
// batch 1 (Transpose perm [1, 0, 2] of [1, 197, 768]: two per ViT layer, more around them). The
// same rewrite is OpenVINO's TransposeToReshape, Arm NN's TransposeAsReshape and ONNX Runtime's
// TransposeReplacement (orttraining/core/optimizer/transpose_replacement.h). Shapes with a 0
// extent are left alone (Reshape reads 0 as "copy this input dim"), as is a graph output (it
// keeps its node).
#include <string>
#include <vector>

#include "registration.h"
#include "simplify_util.h"

namespace ge::fusion {
namespace {

/// Whether `perm` (valid for `dims`) lists the axes longer than 1 in increasing order.
bool moves_only_unit_axes(const std::vector<int64_t>& perm, const std::vector<int64_t>& dims) {
  int64_t last = -1;
  for (int64_t a : perm) {
    if (a < 0 || a >= static_cast<int64_t>(dims.size())) return false;
    if (dims[static_cast<size_t>(a)] == 1) continue;
    if (a < last) return false;
    last = a;
  }
  return true;
}

class TransposeToReshape : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "transpose_to_reshape";
    i.stage = Stage::Simplify;
    i.min_level = OptLevel::O1;
    i.numerics = NumericsEffect::Exact;
    i.summary = "Transpose that only moves axes of extent 1 becomes a Reshape (a view)";
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    if (g.opset("") < 5) return false;  // Reshape takes its shape as an input from opset 5 on
    int64_t rewritten = 0;
    for (Node* t : ordered_nodes(g)) {
      if (t->op_type() != "Transpose" || !t->domain().empty() || !t->input(0) || !t->output(0)) continue;
      Value* x = t->input(0);
      Value* y = t->output(0);
      const std::vector<int64_t>& dims = x->shape.dims();
      if (!t->attrs.has("perm") || dims.size() < 2 || y->is_graph_output()) continue;
      const std::vector<int64_t> perm = t->attrs.get_ints("perm");
      bool zero = false;
      for (int64_t d : dims) zero |= d == 0;
      if (zero || perm.size() != dims.size() || !moves_only_unit_axes(perm, dims)) continue;
      Value* shape = add_shape_constant(g, y->name(), y->shape.dims());
      const std::string name = t->name();
      g.remove_node(t);
      Node* r = g.add_node("Reshape", name, {x, shape}, {y});
      ctx.infer_shapes(*r);
      ++rewritten;
    }
    if (rewritten) restore_topological_order(g);  // replacement nodes were appended at the end
    if (rewritten) ctx.count("simplify.transpose_to_reshape", rewritten);
    return rewritten > 0;
  }
};

}  // namespace

GE_FUSION_PASS(TransposeToReshape, 29);

}  // namespace ge::fusion

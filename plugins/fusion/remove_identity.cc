// remove_identity: Identity and inference-mode Dropout copy their input, so readers may read the
// input directly (ONNX Operators.md#Dropout: with training_mode false the output equals the input
// and the mask is all true).
//
// When the copy is a graph output the node stays (removing it would rename the output); a
// Dropout there becomes an Identity, whose kernel has nothing to check. A used Dropout mask
// becomes a constant of ones (bool true, or 1.0 before opset 10 where the mask has the input's
// type); the mask value keeps its name, so a mask that is a graph output survives too.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "registration.h"
#include "simplify_util.h"

namespace ge::fusion {
namespace {

/// An all-true mask of the given type and shape.
Tensor ones(DataType t, const Shape& s) {
  Tensor m = Tensor::allocate(t, s);
  switch (t) {
    case DataType::Bool: std::fill_n(m.data_as<uint8_t>(), m.numel(), uint8_t{1}); break;
    case DataType::Float32: std::fill_n(m.data_as<float>(), m.numel(), 1.f); break;
    case DataType::Float64: std::fill_n(m.data_as<double>(), m.numel(), 1.0); break;
    case DataType::Float16: std::fill_n(m.data_as<uint16_t>(), m.numel(), float_to_half(1.f)); break;
    default: std::fill_n(m.data_as<uint8_t>(), m.nbytes(), uint8_t{1}); break;  // int8/uint8
  }
  return m;
}

class RemoveIdentity : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "remove_identity";
    i.stage = Stage::Simplify;
    i.min_level = OptLevel::O1;
    i.numerics = NumericsEffect::Exact;
    i.runtime_safe = true;
    i.summary = "Removes Identity and inference Dropout (a used mask becomes a constant all-true tensor)";
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    int64_t removed = 0;
    for (Node* n : ordered_nodes(g)) {
      bool dropout = n->op_type() == "Dropout" && n->domain().empty();
      if (!(n->op_type() == "Identity" && n->domain().empty()) && !dropout) continue;
      Value* x = n->input(0);
      Value* y = n->output(0);
      if (!x || !y) continue;
      // Dropout's shape inference refused training_mode = true, so any Dropout here is inference.
      Value* mask = dropout ? n->output(1) : nullptr;
      if (y->is_graph_output()) {
        if (dropout) removed += replace_by_identity(g, n, ctx);
        continue;
      }
      if (!can_bypass(y, x)) continue;
      g.replace_all_uses(y, x);
      bool keep_mask = mask && (!mask->uses().empty() || mask->is_graph_output());
      erase_node(g, n);
      if (keep_mask) mask->data = std::make_shared<const Tensor>(ones(mask->dtype, mask->shape));
      ++removed;
    }
    if (removed) restore_topological_order(g);  // replacement nodes were appended at the end
    if (removed) ctx.count("simplify.remove_identity", removed);
    return removed > 0;
  }

 private:
  /// Dropout(x) -> y where y is a graph output: Identity(x) -> y, the mask as above.
  static int replace_by_identity(Graph& g, Node* n, PassContext& ctx) {
    Value* x = n->input(0);
    Value* y = n->output(0);
    Value* mask = n->output(1);
    if (y->dtype != x->dtype || y->shape != x->shape) return 0;
    bool keep_mask = mask && (!mask->uses().empty() || mask->is_graph_output());
    std::string name = n->name();
    std::vector<Value*> ins = n->inputs();
    g.remove_node(n);  // not erase_node: x must survive even when n was its only reader
    std::sort(ins.begin(), ins.end());
    ins.erase(std::unique(ins.begin(), ins.end()), ins.end());
    for (Value* v : ins)
      if (v != x && is_orphan(v)) g.remove_value(v);
    if (mask && is_orphan(mask)) g.remove_value(mask);
    if (keep_mask) mask->data = std::make_shared<const Tensor>(ones(mask->dtype, mask->shape));
    Node* id = g.add_node("Identity", name, {x}, {y});
    ctx.infer_shapes(*id);
    return 1;
  }
};

}  // namespace

GE_FUSION_PASS(RemoveIdentity, 10);

}  // namespace ge::fusion

// remove_noop: nodes that return their data input unchanged — readers read the input instead.
//
//  - Reshape, Flatten, Squeeze, Unsqueeze to the input's own shape (row-major order is kept, so
//    equal shape means equal tensor);
//  - Transpose whose perm is the identity (no perm attribute reverses the axes, which is the
//    identity only for rank <= 1);
//  - Cast to the input's own type (when a Cast op is registered);
//  - Concat, Sum, Max, Min, Mean of a single input.
// Every case also requires equal dtype, shape and format of input and output (can_bypass). A no-op
// whose output is a graph output stays: removing it would rename the output.
#include <string>
#include <vector>

#include "registration.h"
#include "simplify_util.h"

namespace ge::fusion {
namespace {

bool identity_perm(const Node& n) {
  const Value* x = n.input(0);
  if (!x) return false;
  if (!n.attrs.has("perm")) return x->shape.rank() <= 1;
  std::vector<int64_t> perm = n.attrs.get_ints("perm");
  if (perm.size() != x->shape.rank()) return false;
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

/// True when node `n` (default domain) computes its input 0 unchanged.
bool is_noop(const Node& n) {
  if (!n.domain().empty() || n.num_outputs() < 1) return false;
  const std::string& op = n.op_type();
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") return true;  // shape checked by can_bypass
  if (op == "Transpose") return identity_perm(n);
  if (op == "Cast") return true;  // dtype checked by can_bypass
  if (op == "Concat" || op == "Sum" || op == "Max" || op == "Min" || op == "Mean") return n.num_inputs() == 1;
  return false;
}

class RemoveNoop : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "remove_noop";
    i.stage = Stage::Simplify;
    i.min_level = OptLevel::O1;
    i.numerics = NumericsEffect::Exact;
    i.summary = "Removes Reshape to the same shape, identity Transpose, Cast to the same type, "
                "single-input Concat/Sum";
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    int64_t removed = 0;
    for (Node* n : ordered_nodes(g)) {
      if (!is_noop(*n)) continue;
      // Single-output ops only: a second output (none of the above has one) would need its own
      // replacement.
      if (n->num_outputs() != 1) continue;
      Value* x = n->input(0);
      Value* y = n->output(0);
      if (!can_bypass(y, x)) continue;
      bypass(g, n, y, x);
      ++removed;
    }
    if (removed) ctx.count("simplify.remove_noop", removed);
    return removed > 0;
  }
};

}  // namespace

GE_FUSION_PASS(RemoveNoop, 35);

}  // namespace ge::fusion

// constant_folding: evaluates nodes whose results are known at compile time and replaces them by
// constants.
//
// A node folds when its OpDef is foldable and either every input carries data, in which case the
// host backend's kernel computes it (PassContext::evaluate), or every output already does (Shape,
// Size and Constant set it in shape inference, and the importer evaluates small subgraphs). Walking
// in topological order folds whole chains in one run, which is how Shape→Gather→Unsqueeze→Concat
// subgraphs disappear. The output values themselves become the constants (the node is removed and
// the value keeps its name and data), so a folded graph output is neither removed nor renamed.
//
// Option simplify.fold_limit_bytes (default 1 MiB): no folded constant may be larger, so that
// folding never trades a cheap op on weights for a big new weight in the plan.
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ge/sdk/error.h"
#include "registration.h"
#include "simplify_util.h"

namespace ge::fusion {
namespace {

constexpr int64_t kDefaultFoldLimitBytes = int64_t{1} << 20;

/// simplify.fold_limit_bytes (declared by fold_limit_option: checked when the environment loads).
int64_t fold_limit_bytes(const PassContext& ctx) {
  return ctx.int_option("simplify", "fold_limit_bytes", kDefaultFoldLimitBytes);
}

/// A value whose contents are fixed at compile time. A graph input may carry data (an old-IR
/// initializer kept as input) yet be fed at run time, so it never counts.
bool known(const Value* v) { return v == nullptr || (v->data != nullptr && !v->is_graph_input()); }

bool dead(const Node& n) {
  for (const Value* o : n.outputs())
    if (o && (!o->uses().empty() || o->is_graph_output())) return false;
  return true;
}

class ConstantFolding : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "constant_folding";
    i.stage = Stage::Simplify;
    i.min_level = OptLevel::O1;
    i.numerics = NumericsEffect::Exact;
    i.summary = "Evaluates nodes whose inputs (or outputs) are known at compile time, shape subgraphs "
                "included; folded constants are at most simplify.fold_limit_bytes";
    i.options = {"simplify.fold_limit_bytes"};
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    const int64_t limit = fold_limit_bytes(ctx);
    int64_t folded = 0;
    for (Node* n : ordered_nodes(g)) {
      if (dead(*n)) continue;  // DCE removes it; evaluating it would be wasted work
      const OpDef* def = op_def(g, *n, ctx);
      if (!def || !def->foldable) continue;
      bool outputs_known = true, inputs_known = true, fits = true;
      for (const Value* o : n->outputs()) {
        if (!o) continue;
        outputs_known &= o->data != nullptr;
        fits &= static_cast<int64_t>(o->nbytes()) <= limit;
      }
      for (const Value* v : n->inputs()) inputs_known &= known(v);
      if (!fits || !(outputs_known || inputs_known)) continue;

      // Recompute from known inputs rather than trust data recorded on the outputs: the inputs
      // are the truth, the recorded data may predate a change to them. Recorded data serves
      // when the inputs are not known (Shape of an activation) or no host kernel runs the node.
      std::vector<Tensor> results;
      bool evaluated = false;
      if (inputs_known) {
        try {
          if (std::optional<std::vector<Tensor>> r = ctx.evaluate(*n)) {
            results = std::move(*r);
            evaluated = true;
          }
        } catch (const Error&) {
          // the host kernel refuses this dtype / attribute
        }
      }
      if (!evaluated && !outputs_known) continue;  // the node runs at run time
      // erase_node keeps the outputs that are used or graph outputs (now without a producer) and
      // drops the rest, so note which survive before the pointers can dangle.
      std::vector<Value*> keep;
      for (size_t i = 0; i < n->num_outputs(); ++i) {
        Value* o = n->output(i);
        keep.push_back(o && (!o->uses().empty() || o->is_graph_output()) ? o : nullptr);
      }
      erase_node(g, n);
      if (evaluated)
        for (size_t i = 0; i < keep.size(); ++i)
          if (keep[i]) keep[i]->data = std::make_shared<const Tensor>(std::move(results[i]));
      ++folded;
    }
    if (folded) ctx.count("simplify.constant_folding", folded);
    return folded > 0;
  }
};

}  // namespace

GE_FUSION_PASS(ConstantFolding, 20);

OptionDecl fold_limit_option() {
  return {"simplify.fold_limit_bytes", OptionType::Int, kDefaultFoldLimitBytes, 0, {}, {},
          "largest constant (bytes) constant folding creates; a bigger result stays a node", OptionPhase::Compile, ""};
}

}  // namespace ge::fusion

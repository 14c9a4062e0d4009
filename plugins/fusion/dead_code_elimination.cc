// dead_code_elimination: removes nodes none of whose outputs is read or is a graph output, then
// constants (and stray values) nothing reads. Graph inputs and outputs are never removed.
//
// Reverse topological order removes a whole dead chain in one walk: by the time a producer is
// visited, its dead consumers are already gone.
#include <vector>

#include "registration.h"
#include "simplify_util.h"

namespace ge::fusion {
namespace {

class DeadCodeElimination : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "dead_code_elimination";
    i.stage = Stage::Simplify;
    i.min_level = OptLevel::O1;
    i.numerics = NumericsEffect::Exact;
    i.runtime_safe = true;
    i.summary = "Removes nodes whose outputs nobody reads and unused constants; keeps graph outputs";
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    std::vector<Node*> order = ordered_nodes(g);
    int64_t nodes = 0, values = 0;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Node* n = *it;
      bool live = false;
      for (const Value* o : n->outputs()) live |= o && (!o->uses().empty() || o->is_graph_output());
      if (live) continue;
      erase_node(g, n);
      ++nodes;
    }
    // Constants whose readers were removed by earlier passes, and values left without producer.
    for (Value* v : g.values())
      if (is_orphan(v)) {
        g.remove_value(v);
        ++values;
      }
    if (nodes) ctx.count("simplify.dead_code_elimination.nodes", nodes);
    if (values) ctx.count("simplify.dead_code_elimination.values", values);
    return nodes + values > 0;
  }
};

}  // namespace

GE_FUSION_PASS(DeadCodeElimination, 90);

}  // namespace ge::fusion

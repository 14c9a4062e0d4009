// Peak live bytes of a node order (liveness.h): a sweep with a count of remaining readers.
#include "liveness.h"

#include <algorithm>

namespace ge::sched {

uint64_t peak_live_bytes(const Graph& g, const std::vector<Node*>& order) {
  std::vector<size_t> readers(g.value_id_bound(), 0);  // reads not yet done, by Value::id
  for (const Node* n : order)
    for (const Value* v : n->inputs())
      if (v && v->producer()) ++readers[v->id()];
  uint64_t live = 0, peak = 0;
  for (const Node* n : order) {
    for (const Value* o : n->outputs())
      if (o) live += o->nbytes();
    peak = std::max(peak, live);
    // An output nobody reads dies at once (unless a graph output); in a topological order its
    // readers all come later, so none has been counted down yet.
    for (const Value* o : n->outputs())
      if (o && !o->is_graph_output() && readers[o->id()] == 0) live -= o->nbytes();
    for (const Value* v : n->inputs()) {
      if (!v || !v->producer()) continue;
      if (--readers[v->id()] == 0 && !v->is_graph_output()) live -= v->nbytes();
    }
  }
  return peak;
}

}  // namespace ge::sched

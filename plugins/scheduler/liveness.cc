// Peak live bytes of a node order (liveness.h): a sweep with a count of remaining readers.
#include "liveness.h"

#include <algorithm>
#include <unordered_map>

namespace ge::sched {

uint64_t peak_live_bytes(const std::vector<Node*>& order) {
  std::unordered_map<const Value*, size_t> readers;  // reads not yet done, per produced value
  for (const Node* n : order)
    for (const Value* v : n->inputs())
      if (v && v->producer()) ++readers[v];
  uint64_t live = 0, peak = 0;
  for (const Node* n : order) {
    for (const Value* o : n->outputs())
      if (o) live += o->nbytes();
    peak = std::max(peak, live);
    for (const Value* o : n->outputs())  // an output nobody reads dies at once (unless an output)
      if (o && !o->is_graph_output() && !readers.count(o)) live -= o->nbytes();
    for (const Value* v : n->inputs()) {
      if (!v || !v->producer()) continue;
      if (--readers[v] == 0 && !v->is_graph_output()) live -= v->nbytes();
    }
  }
  return peak;
}

}  // namespace ge::sched

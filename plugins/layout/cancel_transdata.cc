// plugins/layout/cancel_transdata.cc — step 3 of the layout pass (layout_steps.h): inverse
// TransData pairs cancel, duplicate conversions of one value merge, unread TransData nodes go.
#include <map>
#include <utility>

#include "layout_steps.h"

namespace ge::layout {
namespace {

bool removable(const Value* v) { return v->uses().empty() && !v->is_graph_output(); }

void remove_transdata(Graph& g, Node* n) {
  Value* out = n->output(0);
  g.remove_node(n);
  g.remove_value(out);
}

}  // namespace

int cancel_transdata(Graph& g) {
  int removed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    std::map<std::pair<Value*, Format>, Value*> first;  // (source, dst format) -> its conversion
    for (Node* n : g.topological_order()) {
      if (!is_transdata(*n)) continue;
      Value* x = n->input(0);
      Value* y = n->output(0);
      Value* same = nullptr;
      // TransData(B -> A)(TransData(A -> B)(s)) == s.
      if (Node* p = x->producer(); p && is_transdata(*p) && p->input(0)->format == y->format) same = p->input(0);
      // A second conversion of the same value into the same format.
      else if (auto it = first.find({x, y->format}); it != first.end()) same = it->second;
      else first[{x, y->format}] = y;
      if (same && !y->is_graph_output()) {
        g.replace_all_uses(y, same);
        remove_transdata(g, n);
        ++removed;
        changed = true;
        if (x->producer() && is_transdata(*x->producer()) && removable(x)) {
          remove_transdata(g, x->producer());
          ++removed;
        }
        break;  // the order changed under us: start over
      }
      if (removable(y)) {
        remove_transdata(g, n);
        ++removed;
        changed = true;
        break;
      }
    }
  }
  return removed;
}

bool assign_layout(Graph& g, const FormatPreferenceFn& prefer, PassContext* ctx, bool graph_outputs) {
  bool changed = insert_transdata(g, prefer, ctx, graph_outputs) > 0;
  for (int round = 0; round < 64; ++round) {
    const int sunk = sink_transdata(g, prefer);
    int cancelled = cancel_transdata(g);
    const int composed = compose_transdata(g);
    if (composed) cancelled += cancel_transdata(g);
    if (ctx) {
      ctx->count("layout.sunk", sunk);
      ctx->count("layout.cancelled", cancelled);
      if (composed) ctx->count("layout.composed", composed);
    }
    if (sunk == 0 && cancelled == 0 && composed == 0) break;
    changed = true;
  }
  g.sort_topologically();
  if (ctx) ctx->count("layout.transdata_left", count_transdata(g));
  return changed;
}

}  // namespace ge::layout

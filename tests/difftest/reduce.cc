// tests/difftest/reduce.cc — delta debugging of failing graphs (reduce.h).
#include "reduce.h"

#include <map>
#include <set>

#include "ge/core/importer.h"
#include "ge/sdk/error.h"
#include "ge/sdk/verifier.h"

namespace ge::difftest {
namespace {

/// What a candidate changes: nodes cut (their outputs become graph inputs), values whose readers
/// read another value, graph output slots dropped.
struct Edit {
  std::set<std::string> cut;                  ///< node names
  std::map<std::string, std::string> bypass;  ///< value name → value name
  std::set<size_t> dropped_outputs;
};

/// A copy of g with the edit applied and every node that no output depends on left out. Graph
/// inputs are made as they are first read (inputs nothing reads disappear).
std::unique_ptr<Graph> apply(const Graph& g, const Edit& e) {
  auto out = std::make_unique<Graph>(g.name);
  out->opsets = g.opsets;
  auto follow = [&](const Value* v) {
    for (int guard = 0; v && guard < 1000; ++guard) {
      auto it = e.bypass.find(v->name());
      if (it == e.bypass.end()) break;
      v = g.find_value(it->second);
    }
    return v;
  };
  // Liveness: from the kept outputs back through kept nodes.
  std::set<const Node*> live;
  std::vector<const Value*> work;
  for (size_t i = 0; i < g.outputs().size(); ++i)
    if (!e.dropped_outputs.count(i)) work.push_back(follow(g.outputs()[i]));
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    const Node* p = v ? v->producer() : nullptr;
    if (!p || e.cut.count(p->name()) || !live.insert(p).second) continue;
    for (const Value* in : p->inputs())
      if (in) work.push_back(follow(in));
  }
  std::map<const Value*, Value*> m;
  auto resolve = [&](const Value* v0) -> Value* {
    const Value* v = follow(v0);
    if (!v) return nullptr;
    if (auto it = m.find(v); it != m.end()) return it->second;
    Value* nv;
    if (v->is_constant()) nv = out->add_constant(v->name(), *v->data);
    else nv = out->add_input(v->name(), v->dtype, v->shape);  // a graph input, or a cut node's output
    m[v] = nv;
    return nv;
  };
  for (const Node* n : g.topological_order()) {
    if (!live.count(n)) continue;
    std::vector<Value*> ins, outs;
    for (const Value* v : n->inputs()) ins.push_back(resolve(v));
    for (const Value* v : n->outputs()) {
      Value* nv = v ? out->add_value(v->name(), v->dtype, v->shape) : nullptr;
      if (v) m[v] = nv;
      outs.push_back(nv);
    }
    out->add_node(n->op_type(), n->name(), ins, outs, n->attrs, n->domain());
  }
  std::set<const Value*> marked;
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    if (e.dropped_outputs.count(i)) continue;
    const Value* v = follow(g.outputs()[i]);
    if (!v || !v->producer() || e.cut.count(v->producer()->name()) || !marked.insert(v).second) continue;
    out->mark_output(m.at(v));
  }
  return out;
}

bool valid(Graph& g, const core::Environment& env) {
  if (g.num_nodes() == 0 || g.outputs().empty()) return false;
  try {
    core::ImportOptions io;
    io.backend = "cpu";
    core::propagate_shapes(g, env, io);
    verify_graph_or_throw(g, &env.ops);
  } catch (const Error&) {
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<Graph> reduce_graph(const Graph& g, const core::Environment& env,
                                    const std::function<bool(const Graph&)>& fails, int* steps) {
  int tried = 0;
  Edit best;
  auto attempt = [&](const Edit& e) {
    std::unique_ptr<Graph> c = apply(g, e);
    if (!valid(*c, env)) return false;
    ++tried;
    if (!fails(*c)) return false;
    best = e;
    return true;
  };
  // Outputs: one that fails alone, else drop them one at a time.
  const size_t nout = g.outputs().size();
  bool single = false;
  for (size_t keep = 0; keep < nout && nout > 1 && !single; ++keep) {
    Edit e = best;
    for (size_t i = 0; i < nout; ++i)
      if (i != keep) e.dropped_outputs.insert(i);
    single = attempt(e);
  }
  for (size_t i = 0; i < nout && !single; ++i) {
    Edit e = best;
    e.dropped_outputs.insert(i);
    if (e.dropped_outputs.size() < nout) attempt(e);
  }
  // Nodes, consumers first, until no single node can go.
  for (bool changed = true; changed;) {
    changed = false;
    std::unique_ptr<Graph> cur = apply(g, best);
    std::vector<Node*> order = cur->topological_order();
    for (auto it = order.rbegin(); it != order.rend() && !changed; ++it) {
      const Node* n = *it;
      // Bypass: a single-output node whose input of the same type can stand in for it.
      if (n->num_outputs() == 1 && n->output(0)) {
        for (const Value* in : n->inputs()) {
          if (!in || in->dtype != n->output(0)->dtype || in->shape != n->output(0)->shape) continue;
          Edit e = best;
          e.bypass[n->output(0)->name()] = in->name();
          if (attempt(e)) {
            changed = true;
            break;
          }
        }
        if (changed) break;
      }
      Edit e = best;
      e.cut.insert(n->name());
      changed = attempt(e);
    }
  }
  if (steps) *steps = tried;
  std::unique_ptr<Graph> r = apply(g, best);
  valid(*r, env);
  return r;
}

}  // namespace ge::difftest

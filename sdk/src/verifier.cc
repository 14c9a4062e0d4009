#include "ge/sdk/verifier.h"

#include <vector>

#include "ge/sdk/error.h"

namespace ge {

namespace {

/// Re-runs every node's shape inference on the node's recorded inputs and compares the result
/// with its recorded outputs. Inference writes the node's output values, so each output's dtype,
/// shape and data are put back right after (also when inference throws): the graph leaves as it
/// came, with no copy of it made (a whole-graph clone was most of the cost of this check on large
/// graphs). Each node is judged on its own recorded inputs, so a problem is reported at the node
/// whose outputs disagree with its inputs, not again at every node downstream of it.
void check_inference(Graph& g, const OpRegistry& registry, std::vector<std::string>& problems) {
  struct Saved {
    Value* v;
    DataType dtype;
    Shape shape;
    std::shared_ptr<const Tensor> data;
  };
  std::vector<Saved> saved;
  for (Node* n : g.topological_order()) {
    int64_t opset = g.opset(n->domain());
    // A domain the graph does not import (GE's "ge" ops added by passes): newest definition.
    const OpDef* def = opset > 0 ? registry.find(n->domain(), n->op_type(), opset) : registry.find_any(n->domain(), n->op_type());
    if (def && opset == 0) opset = def->since_version;
    if (!def) {
      problems.push_back(n->describe() + ": op is not in the registry");
      continue;
    }
    if (!def->infer) continue;
    // A node with symbolic dims (Value::symbolic_dims) is checked by symbolic inference, which
    // lives with the importer (ge/core/symbolic.h, verify_symbolic); its -1 extents mean nothing here.
    bool symbolic = false;
    for (Value* v : n->inputs()) symbolic |= v && v->symbolic_dims();
    for (Value* v : n->outputs()) symbolic |= v && v->symbolic_dims();
    if (symbolic) continue;
    saved.clear();
    for (Value* o : n->outputs())
      if (o) saved.push_back({o, o->dtype, o->shape, o->data});
    auto restore = [&] {
      for (Saved& s : saved) {
        s.v->dtype = s.dtype;
        s.v->shape = std::move(s.shape);
        s.v->data = std::move(s.data);
      }
    };
    try {
      InferContext ctx(*n, *def, opset);
      def->infer(ctx);
    } catch (const UnknownValueError&) {
      restore();
      continue;  // shape depends on run-time data; the importer took the model's declared shape
    } catch (const Error& e) {
      restore();
      problems.push_back(e.what());
      continue;
    } catch (...) {
      restore();
      throw;
    }
    for (const Saved& s : saved)
      if (s.v->dtype != s.dtype || s.v->shape != s.shape)
        problems.push_back(n->describe() + ": output '" + s.v->name() + "' is recorded as " + std::string(dtype_name(s.dtype)) +
                           s.shape.str() + " but the op infers " + std::string(dtype_name(s.v->dtype)) + s.v->shape.str());
    restore();
  }
}

/// Acyclic, every input produced by a node of this graph, producer/use links consistent, every
/// graph output produced.
std::vector<std::string> structural_problems(const Graph& g) {
  // Linear in nodes + edges: membership by id (ids are never reused, so a node or value of this
  // graph is the one its id names), and each value's use list is walked once, not once per reader
  // (a weight shared by thousands of nodes made the check quadratic).
  std::vector<std::string> problems;
  const std::vector<Node*> nodes = g.nodes();
  auto own_node = [&](const Node* n) { return n->graph() == &g && g.node_by_id(n->id()) == n; };
  auto own_value = [&](const Value* v) { return g.value_by_id(v->id()) == v; };

  if (!g.is_topological(nodes)) {
    try {
      g.topological_order();
    } catch (const Error& e) {
      problems.push_back(e.what());
    }
  }

  // listed[slot_base[id] + i]: input i of the node with that id appears in its value's uses().
  std::vector<size_t> slot_base(g.node_id_bound(), 0);
  size_t slots = 0;
  for (const Node* n : nodes) {
    slot_base[n->id()] = slots;
    slots += n->num_inputs();
  }
  std::vector<char> listed(slots, 0);
  for (const Value* v : g.values())
    for (const Use& u : v->uses())
      if (u.node && own_node(u.node) && u.index >= 0 && static_cast<size_t>(u.index) < u.node->num_inputs() &&
          u.node->input(static_cast<size_t>(u.index)) == v)
        listed[slot_base[u.node->id()] + static_cast<size_t>(u.index)] = 1;

  auto available = [&](const Value* v) { return v->is_graph_input() || v->is_constant() || v->producer() != nullptr; };
  for (Node* n : nodes) {
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      Value* v = n->input(i);
      if (!v) continue;
      if (!own_value(v)) {
        problems.push_back(n->describe() + ": input " + std::to_string(i) + " '" + v->name() + "' is not a value of this graph");
        continue;
      }
      if (!available(v)) problems.push_back(n->describe() + ": input '" + v->name() + "' is never produced (dangling input)");
      else if (v->producer() && !own_node(v->producer()))
        problems.push_back(n->describe() + ": input '" + v->name() + "' is produced by a node outside the graph");
      if (!listed[slot_base[n->id()] + i]) problems.push_back(n->describe() + ": value '" + v->name() + "' does not list this use");
    }
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      Value* o = n->output(i);
      if (o && o->producer() != n)
        problems.push_back(n->describe() + ": output '" + o->name() + "' names another producer");
    }
  }
  for (Value* v : g.outputs())
    if (!available(v)) problems.push_back("graph output '" + v->name() + "' is never produced");

  return problems;
}

}  // namespace

std::vector<std::string> verify_graph(const Graph& g, const OpRegistry* registry) {
  std::vector<std::string> problems = structural_problems(g);
  if (registry && problems.empty()) check_inference(*g.clone(), *registry, problems);
  return problems;
}

std::vector<std::string> verify_graph(Graph& g, const OpRegistry* registry) {
  std::vector<std::string> problems = structural_problems(g);
  if (registry && problems.empty()) check_inference(g, *registry, problems);  // puts back what it infers
  return problems;
}

namespace {
void throw_problems(const Graph& g, const std::vector<std::string>& problems) {
  if (problems.empty()) return;
  std::string msg = "graph '" + g.name + "' is invalid: " + problems[0];
  if (problems.size() > 1) msg += " (and " + std::to_string(problems.size() - 1) + " more problems)";
  throw InvalidGraphError(msg);
}
}  // namespace

void verify_graph_or_throw(const Graph& g, const OpRegistry* registry) { throw_problems(g, verify_graph(g, registry)); }
void verify_graph_or_throw(Graph& g, const OpRegistry* registry) { throw_problems(g, verify_graph(g, registry)); }

}  // namespace ge

#include "ge/sdk/verifier.h"

#include <unordered_set>

#include "ge/sdk/error.h"

namespace ge {

std::vector<std::string> verify_graph(const Graph& g, const OpRegistry* registry) {
  std::vector<std::string> problems;
  std::unordered_set<const Node*> in_graph;
  for (Node* n : g.nodes()) in_graph.insert(n);

  try {
    g.topological_order();
  } catch (const Error& e) {
    problems.push_back(e.what());
  }

  auto available = [&](const Value* v) { return v->is_graph_input() || v->is_constant() || v->producer() != nullptr; };
  for (Node* n : g.nodes()) {
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      Value* v = n->input(i);
      if (!v) continue;
      if (g.find_value(v->name()) != v) {
        problems.push_back(n->describe() + ": input " + std::to_string(i) + " '" + v->name() + "' is not a value of this graph");
        continue;
      }
      if (!available(v)) problems.push_back(n->describe() + ": input '" + v->name() + "' is never produced (dangling input)");
      else if (v->producer() && !in_graph.count(v->producer()))
        problems.push_back(n->describe() + ": input '" + v->name() + "' is produced by a node outside the graph");
      bool listed = false;
      for (const Use& u : v->uses()) listed |= (u.node == n && u.index == static_cast<int>(i));
      if (!listed) problems.push_back(n->describe() + ": value '" + v->name() + "' does not list this use");
    }
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      Value* o = n->output(i);
      if (o && o->producer() != n)
        problems.push_back(n->describe() + ": output '" + o->name() + "' names another producer");
    }
  }
  for (Value* v : g.outputs())
    if (!available(v)) problems.push_back("graph output '" + v->name() + "' is never produced");

  if (registry && problems.empty()) {
    // Re-run shape inference on a copy and compare with the recorded types and shapes.
    std::unique_ptr<Graph> copy = g.clone();
    for (Node* n : copy->topological_order()) {
      int64_t opset = copy->opset(n->domain());
      // A domain the graph does not import (GE's "ge" ops added by passes): newest definition.
      const OpDef* def = opset > 0 ? registry->find(n->domain(), n->op_type(), opset)
                                   : registry->find_any(n->domain(), n->op_type());
      if (def && opset == 0) opset = def->since_version;
      if (!def) {
        problems.push_back(n->describe() + ": op is not in the registry");
        continue;
      }
      if (!def->infer) continue;
      std::vector<std::pair<DataType, Shape>> recorded;
      for (Value* o : n->outputs()) recorded.emplace_back(o ? o->dtype : DataType::Undefined, o ? o->shape : Shape{});
      try {
        InferContext ctx(*n, *def, opset);
        def->infer(ctx);
      } catch (const UnknownValueError&) {
        continue;  // shape depends on run-time data; the importer took the model's declared shape
      } catch (const Error& e) {
        problems.push_back(e.what());
        continue;
      }
      for (size_t i = 0; i < n->num_outputs(); ++i) {
        Value* o = n->output(i);
        if (!o) continue;
        if (o->dtype != recorded[i].first || o->shape != recorded[i].second)
          problems.push_back(n->describe() + ": output '" + o->name() + "' is recorded as " +
                             std::string(dtype_name(recorded[i].first)) + recorded[i].second.str() +
                             " but the op infers " + std::string(dtype_name(o->dtype)) + o->shape.str());
      }
    }
  }
  return problems;
}

void verify_graph_or_throw(const Graph& g, const OpRegistry* registry) {
  auto problems = verify_graph(g, registry);
  if (problems.empty()) return;
  std::string msg = "graph '" + g.name + "' is invalid: " + problems[0];
  if (problems.size() > 1) msg += " (and " + std::to_string(problems.size() - 1) + " more problems)";
  throw InvalidGraphError(msg);
}

}  // namespace ge

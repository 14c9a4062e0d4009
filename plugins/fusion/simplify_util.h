// plugins/fusion/simplify_util.h — small graph edits the simplify passes share.
//
// The one rule all of them keep: a graph output is never removed or renamed, and a graph input is
// never removed. Bypassing a node (its output read as one of its inputs) therefore refuses when
// the output is a graph output; callers then keep a node that writes that output.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/pass.h"

namespace ge::fusion {

/// The registry definition `n` uses at the graph's opset, or null.
inline const OpDef* op_def(const Graph& g, const Node& n, const PassContext& ctx) {
  return ctx.ops().find(n.domain(), n.op_type(), g.opset(n.domain()));
}

/// True when every node comes after the producers of its inputs in the node list.
inline bool nodes_in_topological_order(const Graph& g) { return g.is_topological(g.nodes()); }

/// The nodes in a topological order that keeps the graph's own order when it already is one, so
/// "the first" of two equal nodes is the first in the text and rewrites keep the reading order.
inline std::vector<Node*> ordered_nodes(const Graph& g) {
  return nodes_in_topological_order(g) ? g.nodes() : g.topological_order();
}

/// After appending replacement nodes: restores a topological node list, moving nothing when the
/// list still is one.
inline void restore_topological_order(Graph& g) {
  if (!nodes_in_topological_order(g)) g.sort_topologically();
}

/// A new int64 constant [dims.size()] holding `dims` (a Reshape target), named after `base`.
inline Value* add_shape_constant(Graph& g, const std::string& base, const std::vector<int64_t>& dims) {
  Tensor t = Tensor::allocate(DataType::Int64, Shape{static_cast<int64_t>(dims.size())});
  for (size_t i = 0; i < dims.size(); ++i) t.data_as<int64_t>()[i] = dims[i];
  return g.add_constant(g.unique_value_name(base + "_shape"), std::move(t));
}

/// A value nobody reads, writes or exposes: safe to drop from the graph.
inline bool is_orphan(const Value* v) {
  return v && v->producer() == nullptr && v->uses().empty() && !v->is_graph_input() && !v->is_graph_output();
}

/// Removes `n` and those of its outputs and inputs that become orphans (inputs only when they are
/// constants: a produced input still has its producer, which DCE judges).
inline void erase_node(Graph& g, Node* n) {
  std::vector<Value*> outs = n->outputs(), ins = n->inputs();
  g.remove_node(n);
  for (Value* v : outs)
    if (is_orphan(v)) g.remove_value(v);
  for (Value* v : ins)
    if (is_orphan(v)) {
      // The same constant may feed two slots of `n`; remove it once.
      g.remove_value(v);
      for (Value*& w : ins)
        if (w == v) w = nullptr;
    }
}

/// True when `y` (an output of a node) may be replaced everywhere by `x`: y is not a graph output
/// (it would be renamed) and both describe the same tensor type.
inline bool can_bypass(const Value* y, const Value* x) {
  return y && x && !y->is_graph_output() && y->dtype == x->dtype && y->shape == x->shape && y->format == x->format;
}

/// Every reader of `y` reads `x` instead; `n` (y's producer) is removed when none of its outputs
/// is used any more.
inline void bypass(Graph& g, Node* n, Value* y, Value* x) {
  g.replace_all_uses(y, x);
  for (Value* o : n->outputs())
    if (o && (!o->uses().empty() || o->is_graph_output())) return;
  erase_node(g, n);
}

}  // namespace ge::fusion

// ge/sdk/verifier.h — structural and type checks of a graph.
#pragma once
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/op_registry.h"

namespace ge {

/// Checks that the graph is acyclic; every node input is produced by a node of this graph, is
/// a graph input or a constant; every graph output is produced or constant; producer/use links
/// are consistent; and, when `registry` is given, every node's op is registered and its output
/// dtypes and shapes equal what the op's shape inference gives. Returns the problems found
/// (empty = valid), each naming the node or value. Each node's inference runs on its recorded
/// inputs, so a disagreement is reported at the node whose outputs do not follow from them.
/// Nodes reading or writing a value with symbolic dims (Value::symbolic_dims) are left to the
/// symbolic check of the host (ge/core/symbolic.h): only their structure is checked here.
/// This form leaves `g` untouched: the inference check runs on a copy of the graph.
std::vector<std::string> verify_graph(const Graph& g, const OpRegistry* registry = nullptr);

/// (ABI 1.8) The same checks without the copy: each node's outputs are re-inferred in place and
/// put back (dtype, shape, data) before the next node, so `g` ends as it began; no other thread
/// may read `g` during the call. What the pass manager uses on the graph it compiles.
std::vector<std::string> verify_graph(Graph& g, const OpRegistry* registry = nullptr);

/// verify_graph, throwing ge::InvalidGraphError with the first problems when any.
void verify_graph_or_throw(const Graph& g, const OpRegistry* registry = nullptr);
/// (ABI 1.8) verify_graph(Graph&) in place, throwing as above.
void verify_graph_or_throw(Graph& g, const OpRegistry* registry = nullptr);

}  // namespace ge

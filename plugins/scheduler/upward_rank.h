// plugins/scheduler/upward_rank.h — HEFT's upward rank over the node DAG (Boost.Graph).
//
//   rank(n) = w(n) + max over consumers s of (c + rank(s))      (0 for the max of no consumers)
//
// Topcuoglu, Hariri & Wu, IEEE TPDS 13(3), 2002, eq. (5), with one communication cost c for every
// edge (an event when producer and consumer land on different streams). rank(n) is the length of
// the longest (critical) path from n to an exit, in µs.
#pragma once
#include <unordered_map>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge::sched {

/// Producers of n's inputs and consumers of n's outputs, each once, in a stable order.
std::vector<Node*> producers(const Node* n);
std::vector<Node*> consumers(const Node* n);

/// Upward rank of every node of `nodes` (a whole graph) with node weights `w` (µs) and edge cost
/// `c` (µs). Uses Boost.Graph's topological_sort over the producer → consumer DAG.
std::unordered_map<const Node*, double> upward_rank(const std::vector<Node*>& nodes,
                                                    const std::unordered_map<const Node*, double>& w, double c);

}  // namespace ge::sched

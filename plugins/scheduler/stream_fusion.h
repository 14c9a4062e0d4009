// plugins/scheduler/stream_fusion.h — merge streams with too little work into a neighbour.
//
// A stream whose busy time (sum of its nodes' estimates) is below `threshold` × the busiest
// stream's buys little overlap and costs an event per dependency and a worker thread; its nodes
// move to the stream it exchanges most data edges with (ties: the busier one). Repeats until every
// stream passes; then renumbers streams 0..k-1 in order of first appearance. Issue order is kept,
// so each stream still runs in issue order and the order stays topological.
#pragma once
#include <unordered_map>

#include "ge/sdk/ir.h"

namespace ge::sched {

/// Returns the number of streams after fusion; rewrites Node::stream.
int fuse_small_streams(Graph& g, const std::unordered_map<const Node*, double>& w_us, double threshold);

/// Renumbers Node::stream to 0..k-1 by first appearance in issue order; returns k.
int compact_streams(Graph& g);

}  // namespace ge::sched

// ge/sdk/stream_order.h — the happens-before order of a scheduled graph (Node::stream,
// Graph::schedule.events), shared by the runtime, the memory planner and plan files.
//
// A schedule runs each stream's nodes in graph order (Graph::nodes() is the issue order) and
// orders nodes of different streams only through events: event {r, w} makes w wait until r has
// finished. Node a happens-before node b when a chain of stream-order steps and events leads
// from a to b. Data edges are NOT part of the order: the runtime enforces only streams and
// events, so a schedule is valid only when every data edge producer → consumer is ordered by
// them (directly or transitively).
//
// Representation: vector clocks (Lamport 1978; Fidge / Mattern 1988). Each node gets, per
// stream s, the position (index among stream s's nodes) of the last node of s that happens
// strictly before it (-1: none). a happens-before b ⟺ clock(b)[stream(a)] ≥ position(a).
// One pass over graph order builds them, because events must point forward in graph order
// (an event waiting for a node issued later would deadlock an in-order runtime; see validate).
// Memory: nodes × streams ints.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge {

class StreamOrder {
 public:
  static constexpr int kMaxStreams = 1024;
  /// Validates g's schedule and builds the order. Throws ge::Error naming the problem:
  /// schedule.streams outside 1..kMaxStreams or a Node::stream outside [0, streams); pipeline_stages < 1 or a
  /// Node::pipeline_stage outside [0, pipeline_stages), a node issued after a node of a later
  /// stage (stages are contiguous runs of graph order, so that a stage-by-stage execution is the
  /// order the arena was planned for) or a data edge from a later stage to an earlier one; an event naming no node of g, joining two nodes of one stream, or waiting
  /// for a node that is not issued before it (a cycle: the in-order runtime would deadlock);
  /// a data edge producer → consumer that stream order and events do not imply (naming the
  /// edge, its value and both streams).
  explicit StreamOrder(const Graph& g);

  int num_streams() const { return streams_; }
  size_t num_nodes() const { return nodes_.size(); }
  /// Graph order (the issue order) and each node's index in it.
  const std::vector<const Node*>& nodes() const { return nodes_; }
  int index(const Node* n) const { return index_.at(n); }
  int stream(int i) const { return stream_[i]; }
  /// Index of node i among the nodes of its stream.
  int position(int i) const { return position_[i]; }
  /// True when node a finishes before node b starts in every execution (false for a == b).
  bool before(int a, int b) const { return clock_[static_cast<size_t>(b) * streams_ + stream_[a]] >= position_[a]; }
  /// Clock of node b: per stream, the position of the last node of that stream that happens
  /// strictly before b (-1: none).
  const int* clock(int b) const { return &clock_[static_cast<size_t>(b) * streams_]; }

 private:
  int streams_ = 1;
  std::vector<const Node*> nodes_;
  std::unordered_map<const Node*, int> index_;
  std::vector<int> stream_, position_, clock_;
};

/// True when g's schedule uses more than one stream (the runtime then runs streams on threads
/// and the memory planner plans for concurrency).
bool is_multi_stream(const Graph& g);

/// The events a stream assignment needs: walks graph order and, for every data edge between
/// nodes of different streams that the events so far do not imply, adds {producer, consumer}.
/// The result is minimal in that no event is implied by earlier ones. Requires a topological
/// graph order and Node::stream in [0, g.schedule.streams) (ge::Error otherwise).
std::vector<StreamEvent> derive_events(const Graph& g);

/// Keeps the order among the other nodes when `n` is about to be removed (load-time pruning):
/// events waited before n move to the next node of n's stream, events recorded after n move to
/// the previous one, and each (waited, recorded) pair of n becomes a direct event. Call before
/// Graph::remove_node(n).
void drop_from_schedule(Graph& g, const Node* n);

}  // namespace ge

// tests/memory/arena_checker.h — an independent check of an arena plan, sharing no code with the
// planners (plugins/memory): it recomputes liveness from the graph in its node order and checks
//  - every planned value lies in [0, arena_bytes) at a 64-byte-aligned offset (a Concat or Pad
//    input written into the output, or a Split/Slice part inside its input, is aligned relative
//    to that value instead);
//  - no two values overlap in bytes unless one's every access (producer and readers)
//    happens-before the other's producer — under the schedule's stream order and events
//    (Node::stream, Graph::schedule.events; one stream = graph order), recomputed here by a
//    depth-first search, not the planner's vector clocks — except the legal sharings: a view
//    (Reshape/Flatten/Squeeze/Unsqueeze/Identity/Dropout) at its input's offset; an elementwise
//    or broadcast output over a same-shaped input whose last use is that node; a Concat input
//    dying at the Concat that sits exactly in its slice of the output (dims before the axis 1),
//    a Pad input likewise in its output's contiguous interior; values of one root (through
//    views and Split/Slice parts each placed where its contiguous run of the input lies);
//  - with `views_aliased`, every view whose input and output are planned shares its bytes.
// On failure the message includes an ASCII space-time picture of the arena (rows = steps,
// columns = address buckets), as XLA's heap-simulator tests draw them.
#pragma once
#include <string>

#include "ge/sdk/ir.h"
#include "ge/sdk/op_registry.h"

namespace ge::test {

struct ArenaCheckOptions {
  bool views_aliased = false;
  int columns = 64;
};

/// Empty when the plan is sound; otherwise every violation, one a line, and the picture.
std::string check_arena(const Graph& g, const OpRegistry& ops, ArenaCheckOptions opts = {});

/// The arena as a space-time picture: one row per step, `columns` address buckets; a letter per
/// value (legend below), '.' free, '#' two or more values in one bucket at one step.
std::string draw_arena(const Graph& g, int columns = 64);

}  // namespace ge::test

// plugins/scheduler/liveness.h — bytes live at each step of a node order.
//
// A produced value (not a constant, not a graph input: those live outside the arena) is live from
// the step of its producer to the step of its last consumer; graph outputs stay live to the end.
// While a node runs, its inputs and its outputs are live. Views are counted as copies (an upper
// bound: the memory stage later lets them share bytes).
#pragma once
#include <cstdint>
#include <vector>

#include "ge/sdk/ir.h"

namespace ge::sched {

/// Peak over the steps of `order` (a topological order of the whole of `g`) of the bytes live.
uint64_t peak_live_bytes(const Graph& g, const std::vector<Node*>& order);

}  // namespace ge::sched

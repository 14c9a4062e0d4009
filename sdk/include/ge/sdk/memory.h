// ge/sdk/memory.h — arena planning: every intermediate tensor gets an offset in one arena.
//
// The memory stage turns the graph (in its execution order) into a MemoryProblem: one buffer per
// produced value with the step that defines it and the last step that reads it, plus the aliases
// (views: Reshape/Flatten/Squeeze/Unsqueeze/Identity outputs share their input's bytes, and so do
// Split and Slice parts that are one contiguous run of the input), in-place candidates (an
// elementwise op may write over an input that dies at that step) and concat groups (inputs
// written straight into their slice of a Concat output, or into the interior of a Pad output
// when that interior is contiguous). A MemoryPlanner assigns offsets;
// the plan is recorded in the IR (Value::arena_offset, Graph::arena_bytes) and the runtime
// allocates one arena and runs every kernel on offsets into it. Graph inputs, outputs and
// constants live outside the arena.
//
// Planners follow Pisarchyk & Lee, "Efficient Memory Management for Deep Neural Net Inference"
// (arXiv:2001.03288, 2020): greedy by size (best fit, largest first) and greedy by breadth.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ge {

/// One buffer to place. Steps index the execution order (0 = first node).
struct BufferRequest {
  std::string name;       ///< the value's name (for messages and pictures)
  uint64_t bytes = 0;     ///< size; the planner rounds offsets to the problem's alignment
  int first_step = 0;     ///< step whose node writes it
  int last_step = 0;      ///< last step that reads it (inclusive); == first_step when unused
};

/// What the plan_memory pass (plugins/memory) hands a planner: each buffer is already a whole
/// alias group (a value with its views, in-place outputs and Concat slices, over the union of
/// their lifetimes), so a planner only packs intervals. Merging an in-place pair never raises
/// the bytes live at any step, so the pass merges them itself and leaves inplace_candidates empty;
/// the field stays for planners fed by other passes.
struct MemoryProblem {
  std::vector<BufferRequest> buffers;
  int num_steps = 0;
  uint64_t alignment = 64;  ///< bytes
  /// "none": no reuse (the pass then uses `naive`); "basic": reuse and views, no in-place,
  /// Concat or Pad in place; "aggressive": everything. Informational: the pass already applied it.
  std::string level = "aggressive";
  /// (output buffer, input buffer): the output may occupy the input's bytes because the input's
  /// last read is the step that writes the output and the op reads each element before writing it.
  std::vector<std::pair<int, int>> inplace_candidates;
  /// Multi-stream schedules (Graph::schedule.streams > 1): steps (graph order) no longer order
  /// the buffers, because streams run concurrently. A tensor lives from its producer's start
  /// until its last consumer on any stream has finished, and two buffers may share bytes only
  /// when every access of one happens-before the first write of the other in the order that
  /// stream order and events give (ge/sdk/stream_order.h). `conflicts[i]` then lists, sorted
  /// ascending, every buffer that must not share bytes with buffer i (the relation is
  /// symmetric); the [first_step, last_step] intervals remain as graph-order hints for the
  /// planners' orderings only. Empty (one stream): intersecting intervals conflict.
  std::vector<std::vector<int>> conflicts;
};

/// Whether buffers a and b of `p` may not share bytes: `conflicts` when given, else their
/// [first_step, last_step] intervals intersect.
inline bool buffers_conflict(const MemoryProblem& p, int a, int b) {
  if (!p.conflicts.empty()) {
    const std::vector<int>& c = p.conflicts[static_cast<size_t>(a)];
    size_t lo = 0, hi = c.size();
    while (lo < hi) {  // binary search (no <algorithm> in this header)
      size_t mid = (lo + hi) / 2;
      if (c[mid] < b) lo = mid + 1;
      else hi = mid;
    }
    return lo < c.size() && c[lo] == b;
  }
  const BufferRequest &x = p.buffers[static_cast<size_t>(a)], &y = p.buffers[static_cast<size_t>(b)];
  return x.first_step <= y.last_step && y.first_step <= x.last_step;
}

struct ArenaPlan {
  std::string planner;
  uint64_t arena_bytes = 0;
  std::vector<uint64_t> offsets;  ///< per buffer of the problem
};

class MemoryPlanner {
 public:
  virtual ~MemoryPlanner() = default;
  virtual std::string name() const = 0;  ///< "naive", "greedy_by_size", ...
  /// Offsets such that no two conflicting buffers (buffers_conflict: intersecting
  /// [first_step, last_step] intervals, or MemoryProblem::conflicts under several streams)
  /// overlap in [offset, offset + bytes), except in-place pairs the planner chose to share.
  /// Offsets are multiples of problem.alignment.
  virtual ArenaPlan plan(const MemoryProblem& problem) const = 0;
};

}  // namespace ge

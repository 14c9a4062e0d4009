// plugins/memory/buffer_groups.h — liveness and aliasing: from a graph in execution order to the
// buffers a planner places.
//
// A buffer group is one arena buffer shared by several values: views (Reshape, Flatten, Squeeze,
// Unsqueeze, Identity, Dropout's output 0) at their input's offset, Split and Slice parts that are
// one contiguous run of their input inside it, in-place elementwise outputs over an input that
// dies there, and Concat and Pad inputs written straight into their slice of the output. Each member sits at a fixed offset inside the group; the group is reserved over the
// union of its members' lifetimes.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/op_registry.h"
#include "ge/sdk/stream_order.h"

namespace ge::memory {

struct AliasOptions {
  bool views = true;    ///< level "basic" and up (also contiguous Split and Slice parts)
  bool inplace = true;  ///< level "aggressive"
  bool concat = true;   ///< level "aggressive": Concat and Pad in place
  /// Concat and Pad inputs not to write in place (the pass drops those whose longer reservation costs).
  std::set<const Value*> concat_excluded;
  /// Several streams: an input dies at a node only when every other access to its group
  /// happens-before that node (not merely comes earlier in graph order).
  const StreamOrder* order = nullptr;
};

struct GroupMember {
  Value* value;
  uint64_t offset;  ///< inside the group
};

struct BufferGroup {
  std::vector<GroupMember> members;  ///< members[0] is the group's root (offset 0)
  uint64_t bytes = 0;
  int first_step = 0, last_step = 0;  ///< union of the members' [definition, last use]
};

/// Values the arena holds: produced by a node, not a graph output, not empty.
bool is_planned(const Value* v);

/// Groups of every planned value for `order` (a topological order of g's nodes). When given,
/// `concat_inputs` receives the Concat and Pad inputs written in place.
std::vector<BufferGroup> build_groups(const Graph& g, const std::vector<Node*>& order, const OpRegistry& ops,
                                      const AliasOptions& opts, std::vector<const Value*>* concat_inputs = nullptr);

/// MemoryProblem::conflicts of `groups` under a multi-stream order: groups a and b conflict
/// unless every node touching a (writing or reading a member) happens-before every node
/// writing b, or the other way round.
std::vector<std::vector<int>> group_conflicts(const std::vector<BufferGroup>& groups, const StreamOrder& order);

/// Max over steps of the bytes live (each group counting the union of its live members'
/// ranges, rounded up to `alignment`): no planner of these groups can do better. `order` is a
/// topological order of g's nodes.
uint64_t live_bytes_lower_bound(const Graph& g, const std::vector<BufferGroup>& groups, const std::vector<Node*>& order,
                                uint64_t alignment);

}  // namespace ge::memory

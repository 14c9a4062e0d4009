// plugins/memory/planners.h — the arena planners of this plugin and what they share.
//
// Each planner lives in its own file; `auto` runs the others and keeps the smallest arena, so
// they are reachable here by factory as well as through the registrar.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "ge/sdk/memory.h"

namespace ge::memory {

std::shared_ptr<MemoryPlanner> make_naive_planner();
std::shared_ptr<MemoryPlanner> make_greedy_by_size_planner();
std::shared_ptr<MemoryPlanner> make_greedy_by_breadth_planner();
std::shared_ptr<MemoryPlanner> make_auto_planner();

inline uint64_t align_up(uint64_t x, uint64_t a) { return a <= 1 ? x : (x + a - 1) / a * a; }

/// A buffer already given an offset: [offset, offset + size), buffer `index` of the problem.
struct PlacedBuffer {
  uint64_t offset, size;
  int index;
};

/// Places the problem's buffers one by one in `order` with best fit (Pisarchyk & Lee 2020,
/// arXiv:2001.03288 §4.3): among the gaps between placed buffers that conflict with the next
/// one (buffers_conflict: intersecting lifetimes, or the problem's explicit conflicts under
/// several streams), the smallest that holds it; when none does, just above the highest of them.
/// Returns the plan.
ArenaPlan place_in_order(const MemoryProblem& p, const std::vector<int>& order, const std::string& name);

}  // namespace ge::memory
